/* plumb_embed_example [-v] MODEL.plumb INPUT.npy...: runs a .plumb model through plumb's C API
 * (include/plumb.h) the way a program on a small device would: the model bytes read into memory
 * and used in place, one arena sized by the planner and allocated once, the inputs and outputs in
 * the program's own buffers, and nothing allocated while the model runs.
 *
 * Prints each output as one line, "output K 'NAME' DTYPE[DIMS]: V V V ...": f32 as %.9g and f64
 * as %.17g (both read back to the same bits), integers and bool in decimal, the other float
 * types as their bits in hex. -v: also the arena's size on stderr. Errors: one line on stderr,
 * exit 2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"
#include "plumb.h"
#include "print.h"

static int usage(void) {
  fprintf(stderr, "usage: plumb_embed_example [-v] MODEL.plumb INPUT.npy...\n");
  return 2;
}

/* Reads a whole file into malloc'd memory (malloc aligns it to at least PLUMB_MODEL_ALIGN on
 * the usual hosts, so plumb_model_load_memory uses it in place). */
static void* read_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  void* data = NULL;
  if (fseek(f, 0, SEEK_END) == 0) {
    const long n = ftell(f);
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (data = malloc((size_t)n + 1)) != NULL) {
      *size = fread(data, 1, (size_t)n, f);
      if (*size != (size_t)n) {
        free(data);
        data = NULL;
      }
    }
  }
  fclose(f);
  return data;
}

/* Prints "plumb_embed_example: WHAT: the model's last error" and returns the exit code 2. */
static int fail(plumb_model* m, const char* what) {
  fprintf(stderr, "plumb_embed_example: %s: %s\n", what, plumb_last_error(m));
  return 2;
}

int main(int argc, char** argv) {
  const int verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
  if (verbose) {
    --argc;
    ++argv;
  }
  if (argc < 2) return usage();
  const char* model_path = argv[1];
  const size_t num_files = (size_t)(argc - 2);
  size_t model_size = 0;
  void* model_bytes = read_file(model_path, &model_size);
  if (!model_bytes) {
    fprintf(stderr, "plumb_embed_example: %s: cannot read\n", model_path);
    return 2;
  }
  plumb_model* m = plumb_model_create();
  if (!m) return 2;
  int rc = 0;
  npy_array* inputs = calloc(num_files ? num_files : 1, sizeof *inputs);
  void** outputs = NULL;
  void* arena = NULL;
  if (plumb_model_load_memory(m, model_bytes, model_size) != PLUMB_OK) {
    rc = fail(m, model_path);
    goto done;
  }
  if (num_files != plumb_model_num_inputs(m)) {
    fprintf(stderr, "plumb_embed_example: %s: the model has %zu inputs, %zu files were given\n", model_path,
            plumb_model_num_inputs(m), num_files);
    rc = 2;
    goto done;
  }
  /* The inputs' shapes decide the plan (symbolic dimensions take the files' sizes). */
  for (size_t k = 0; k < num_files; ++k) {
    char error[512];
    plumb_tensor_info info;
    if (npy_read(argv[2 + k], &inputs[k], error, sizeof error) != 0) {
      fprintf(stderr, "plumb_embed_example: %s\n", error);
      rc = 2;
      goto done;
    }
    if (plumb_model_input_info(m, k, &info) != PLUMB_OK) {
      rc = fail(m, argv[2 + k]);
      goto done;
    }
    if (info.dtype != inputs[k].dtype) {
      fprintf(stderr, "plumb_embed_example: %s: input '%s' is %s, the file holds %s\n", argv[2 + k],
              info.name, plumb_dtype_name(info.dtype), plumb_dtype_name(inputs[k].dtype));
      rc = 2;
      goto done;
    }
    if (plumb_model_set_input_shape(m, k, inputs[k].dims, inputs[k].rank) != PLUMB_OK) {
      rc = fail(m, argv[2 + k]);
      goto done;
    }
  }
  /* One arena, sized by the planner and allocated once. */
  size_t arena_bytes = 0;
  if (plumb_model_arena_size(m, &arena_bytes) != PLUMB_OK) {
    rc = fail(m, model_path);
    goto done;
  }
  if (verbose) fprintf(stderr, "plumb_embed_example: arena %zu bytes\n", arena_bytes);
  arena = malloc(arena_bytes ? arena_bytes : 1);
  if (!arena || plumb_model_plan(m, arena, arena_bytes) != PLUMB_OK) {
    rc = fail(m, model_path);
    goto done;
  }
  for (size_t k = 0; k < num_files; ++k)
    if (plumb_model_bind_input(m, k, inputs[k].data, inputs[k].bytes) != PLUMB_OK) {
      rc = fail(m, argv[2 + k]);
      goto done;
    }
  /* Outputs of a planned size go to the program's buffers; one whose size depends on the data is
   * read where the run left it (plumb_model_output_data). */
  const size_t num_outputs = plumb_model_num_outputs(m);
  outputs = calloc(num_outputs ? num_outputs : 1, sizeof *outputs);
  for (size_t k = 0; outputs && k < num_outputs; ++k) {
    plumb_tensor_info info;
    if (plumb_model_output_info(m, k, &info) != PLUMB_OK) {
      rc = fail(m, model_path);
      goto done;
    }
    size_t bytes = plumb_dtype_size(info.dtype);
    for (size_t d = 0; d < info.rank && bytes; ++d)
      bytes = info.dims[d] < 0 ? 0 : bytes * (size_t)info.dims[d];
    if (bytes == 0) continue;
    outputs[k] = malloc(bytes);
    if (!outputs[k] || plumb_model_bind_output(m, k, outputs[k], bytes) != PLUMB_OK) {
      rc = fail(m, model_path);
      goto done;
    }
  }
  if (plumb_model_run(m) != PLUMB_OK) {
    rc = fail(m, model_path);
    goto done;
  }
  for (size_t k = 0; k < num_outputs; ++k) print_output(m, k, outputs[k]);
done:
  for (size_t k = 0; outputs && k < plumb_model_num_outputs(m); ++k) free(outputs[k]);
  free(outputs);
  for (size_t k = 0; inputs && k < num_files; ++k) npy_free(&inputs[k]);
  free(inputs);
  plumb_model_destroy(m); /* before the arena and the model bytes it uses */
  free(arena);
  free(model_bytes);
  return rc;
}
