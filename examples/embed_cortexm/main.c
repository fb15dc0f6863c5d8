/* plumb_cortexm_example: the C API example on a bare-metal Cortex-M3 (qemu-system-arm's
 * mps2-an385 board), with no file system: the .plumb model and one input are byte arrays in the
 * flash (generated at build time from the files, embed_bytes.cmake), the model is loaded from
 * there in place, planned into a static arena in the RAM, run once, and its outputs are printed
 * over semihosting in plumb_embed_example's format (examples/embed_c/print.c), so that
 * tests/embed/cortexm_qemu.sh compares them byte for byte with the x86-64 build's.
 *
 * Lines that start with '#' are figures, not outputs: the arena the plan needs, the heap the
 * loaded model holds, the C library allocations made by the run, and the CMSDK timer's ticks
 * during the run (25 MHz; under `qemu-system-arm -icount shift=0` each instruction takes 1 ns of
 * virtual time, so instructions = 40 x ticks, to 40). Exit status 0, or 2 after one error line. */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>

#include "plumb.h"
#include "print.h"

extern const uint8_t plumb_model_bytes[];
extern const size_t plumb_model_bytes_size;
extern const uint8_t plumb_input_bytes[];
extern const size_t plumb_input_bytes_size;

#ifndef PLUMB_CORTEXM_ARENA_BYTES
#define PLUMB_CORTEXM_ARENA_BYTES (512 * 1024)
#endif
static uint8_t arena[PLUMB_CORTEXM_ARENA_BYTES] __attribute__((aligned(PLUMB_ARENA_ALIGN)));

/* The run's output buffers: the outputs are copied here (a static buffer, no allocation). */
#define OUTPUT_BYTES 4096
static uint8_t output_buffer[OUTPUT_BYTES] __attribute__((aligned(16)));

/* Every malloc of the program (libstdc++'s operator new too) goes through here: linked with
 * -Wl,--wrap=malloc, so that the example can say how many the run made. */
void* __real_malloc(size_t bytes);
void* __wrap_malloc(size_t bytes);
static unsigned long mallocs;
void* __wrap_malloc(size_t bytes) {
  ++mallocs;
  return __real_malloc(bytes);
}

/* The CMSDK APB timer 0 of the MPS2 FPGA images, counting down from its reload value at 25 MHz. */
#define TIMER0_CTRL (*(volatile uint32_t*)0x40000000u)
#define TIMER0_VALUE (*(volatile uint32_t*)0x40000004u)
#define TIMER0_RELOAD (*(volatile uint32_t*)0x40000008u)

static int fail(plumb_model* m, const char* what) {
  printf("plumb_cortexm_example: %s: %s\n", what, plumb_last_error(m));
  plumb_model_destroy(m);
  return 2;
}

int main(void) {
  plumb_model* m = plumb_model_create();
  if (!m) {
    printf("plumb_cortexm_example: out of memory\n");
    return 2;
  }
  /* This build reads no files (PLUMB_POSIX_FILES=OFF): load_file says so. */
  const plumb_status file_status = plumb_model_load_file(m, "model.plumb");
  printf("# load_file: status %d: %s\n", (int)file_status, plumb_last_error(m));
  if (file_status != PLUMB_UNSUPPORTED) return fail(m, "load_file did not refuse");

  if (plumb_model_load_memory(m, plumb_model_bytes, plumb_model_bytes_size) != PLUMB_OK)
    return fail(m, "the embedded model");
  const size_t heap_loaded = mallinfo().uordblks;
  if (plumb_model_num_inputs(m) != 1) {
    printf("plumb_cortexm_example: the model has %u inputs, the example embeds 1\n",
           (unsigned)plumb_model_num_inputs(m));
    plumb_model_destroy(m);
    return 2;
  }
  size_t need = 0;
  if (plumb_model_arena_size(m, &need) != PLUMB_OK) return fail(m, "the embedded model");
  printf("# arena: %u bytes needed, %u bytes given\n", (unsigned)need, (unsigned)sizeof arena);
  if (plumb_model_plan(m, arena, sizeof arena) != PLUMB_OK) return fail(m, "plan");
  if (plumb_model_bind_input(m, 0, plumb_input_bytes, plumb_input_bytes_size) != PLUMB_OK)
    return fail(m, "the embedded input");
  /* Outputs of a planned size go to the static buffer, one after the other. */
  const size_t num_outputs = plumb_model_num_outputs(m);
  const void* bound[8] = {0};
  size_t used = 0;
  for (size_t k = 0; k < num_outputs && k < 8; ++k) {
    plumb_tensor_info info;
    if (plumb_model_output_info(m, k, &info) != PLUMB_OK) return fail(m, "output");
    size_t bytes = plumb_dtype_size(info.dtype);
    for (size_t d = 0; d < info.rank && bytes; ++d) bytes = info.dims[d] < 0 ? 0 : bytes * (size_t)info.dims[d];
    if (bytes == 0 || used + bytes > OUTPUT_BYTES) continue; /* read where the run leaves it */
    if (plumb_model_bind_output(m, k, output_buffer + used, bytes) != PLUMB_OK) return fail(m, "output");
    bound[k] = output_buffer + used;
    used += (bytes + 15) / 16 * 16;
  }
  const struct mallinfo heap = mallinfo();
  TIMER0_CTRL = 0;
  TIMER0_RELOAD = 0xffffffffu;
  TIMER0_VALUE = 0xffffffffu;
  TIMER0_CTRL = 1; /* enable */
  const unsigned long mallocs_before = mallocs;
  const uint32_t start = TIMER0_VALUE;
  const plumb_status run_status = plumb_model_run(m);
  const uint32_t ticks = start - TIMER0_VALUE;
  const unsigned long run_mallocs = mallocs - mallocs_before;
  if (run_status != PLUMB_OK) return fail(m, "run");
  printf("# heap: %u bytes in use after loading, %u after planning, %u taken from the system\n",
         (unsigned)heap_loaded, (unsigned)heap.uordblks, (unsigned)heap.arena);
  printf("# run: %lu C library allocations, %lu timer ticks\n", run_mallocs, (unsigned long)ticks);
  for (size_t k = 0; k < num_outputs; ++k) print_output(m, k, k < 8 ? bound[k] : NULL);
  plumb_model_destroy(m);
  return 0;
}
