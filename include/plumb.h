/* plumb.h: the C API of plumb's embeddable runtime (the IR loader and verifier, the planner, the
 * executor and the reference kernels).
 *
 * One plumb_model is one context: a model, its plan for the current input shapes, its buffers and
 * its last error. Calls on one model must not overlap; different models may be used from
 * different threads at the same time (the library keeps no global mutable state).
 *
 *   plumb_model* m = plumb_model_create();
 *   if (plumb_model_load_file(m, "model.plumb") != PLUMB_OK) puts(plumb_last_error(m));
 *   plumb_model_set_input_shape(m, 0, dims, 4);       (only for inputs with symbolic dims)
 *   size_t need; plumb_model_arena_size(m, &need);   (plans for the current input shapes)
 *   plumb_model_plan(m, arena, need);                 (or plumb_model_plan(m, NULL, 0))
 *   plumb_model_bind_input(m, 0, x, x_bytes);
 *   plumb_model_bind_output(m, 0, y, y_bytes);
 *   plumb_model_run(m);                               (y now holds output 0)
 *   plumb_model_destroy(m);
 *
 * Phases, after XNNPACK and TensorFlow Lite Micro: load (the file is always verified: nothing runs
 * unverified), plan (types resolved for the input shapes, one arena laid out by liveness), bind,
 * run. For a model whose values all have static shapes after planning (no data-dependent shapes,
 * no if/while), every value lives in the arena or in the bound buffers, and binding and running
 * allocate nothing: the kernels' temporaries are in the arena too (plumb_model_arena_size counts
 * them; tests/api_alloc checks every whole-model test). Changing an
 * input shape needs a new plan, into the same arena when it is large enough (PLUMB_INVALID_INPUT
 * says how many bytes are needed otherwise).
 *
 * Buffers hold tensors as the runtime stores them: row-major, contiguous, little-endian as the
 * machine is, each element plumb_dtype_size() bytes (the sub-byte types i2, u2, i4, u4, f4e2m1
 * take one byte per element, holding the value in its low bits; bool is one byte, 0 or 1).
 * Only tensor inputs and outputs of numeric or bool type can be bound: a model with string or
 * container (sequence, optional, map) inputs or outputs is refused at load (PLUMB_UNSUPPORTED).
 *
 * Errors: every call returns a plumb_status; on failure plumb_last_error(model) is one line,
 * "<place>: <reason> (<spec label>)", valid until the next call on that model. */
#ifndef PLUMB_H
#define PLUMB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum plumb_status {
  PLUMB_OK = 0,
  PLUMB_INVALID_MODEL = 1, /* the file or its graph breaks the spec: the verifier refused it */
  PLUMB_INVALID_INPUT = 2, /* an argument does not fit the model: index, shape, buffer size, call order */
  PLUMB_UNSUPPORTED = 3,   /* valid, but not something this build or this API runs */
  PLUMB_RUNTIME_ERROR = 4, /* data out of contract while running (a spec R-label) */
  PLUMB_OUT_OF_MEMORY = 5, /* an allocation failed */
  PLUMB_INTERNAL_ERROR = 6 /* a bug in plumb */
} plumb_status;

/* Element types (spec/dtypes.def, in its order). */
typedef enum plumb_dtype {
  PLUMB_BOOL = 0,
  PLUMB_I2 = 1,
  PLUMB_U2 = 2,
  PLUMB_I4 = 3,
  PLUMB_U4 = 4,
  PLUMB_I8 = 5,
  PLUMB_I16 = 6,
  PLUMB_I32 = 7,
  PLUMB_I64 = 8,
  PLUMB_U8 = 9,
  PLUMB_U16 = 10,
  PLUMB_U32 = 11,
  PLUMB_U64 = 12,
  PLUMB_F4E2M1 = 13,
  PLUMB_F8E4M3FN = 14,
  PLUMB_F8E4M3FNUZ = 15,
  PLUMB_F8E5M2 = 16,
  PLUMB_F8E5M2FNUZ = 17,
  PLUMB_F8E8M0 = 18,
  PLUMB_F16 = 19,
  PLUMB_BF16 = 20,
  PLUMB_F32 = 21,
  PLUMB_F64 = 22,
  PLUMB_STRING = 23
} plumb_dtype;

/* A model buffer whose start is aligned to this many bytes is used in place by
 * plumb_model_load_memory (its constants are read where they are); any other is copied. */
#define PLUMB_MODEL_ALIGN 16

/* Bytes plumb_model_plan needs beyond the planned arena to align it (any arena pointer will do). */
#define PLUMB_ARENA_ALIGN 64

typedef struct plumb_model plumb_model;

/* What a model says about one input or output. The pointers stay valid until the next
 * plumb_model_set_input_shape, plan, run, load or destroy on that model. */
typedef struct plumb_tensor_info {
  const char* name; /* the graph's name for it ("" when it has none) */
  plumb_dtype dtype;
  size_t rank;
  const int64_t* dims;          /* rank sizes; -1 for a dimension not known yet (symbolic) */
  const char* const* dim_names; /* rank names: a symbolic dimension's name, "" otherwise */
} plumb_tensor_info;

/* An empty model (no file loaded yet); NULL only when out of memory. */
plumb_model* plumb_model_create(void);
void plumb_model_destroy(plumb_model* model);

/* The last error of `model`, one line ("" when the last call succeeded). Never NULL. */
const char* plumb_last_error(const plumb_model* model);

/* Loads `size` bytes of a .plumb file and verifies them. The bytes must stay valid and unchanged
 * while the model lives when `data` is PLUMB_MODEL_ALIGN-aligned (constants are used in place);
 * otherwise they are copied. A model with external weights is refused (use load_file). */
plumb_status plumb_model_load_memory(plumb_model* model, const void* data, size_t size);
/* Reads and verifies a .plumb file (external weights are looked up next to it). A build without
 * files (PLUMB_POSIX_FILES=OFF, the default on bare metal) returns PLUMB_UNSUPPORTED. */
plumb_status plumb_model_load_file(plumb_model* model, const char* path);

size_t plumb_model_num_inputs(const plumb_model* model);
size_t plumb_model_num_outputs(const plumb_model* model);
/* Input k's declared type, with the sizes set by plumb_model_set_input_shape. */
plumb_status plumb_model_input_info(plumb_model* model, size_t k, plumb_tensor_info* info);
/* Output k's declared type; after planning, its planned type (dims still -1 where the size
 * depends on data); after a run, the type it has. */
plumb_status plumb_model_output_info(plumb_model* model, size_t k, plumb_tensor_info* info);

/* Sets the shape of input k for the next plan: the rank and every static dimension must be the
 * declared ones; symbolic dimensions take any size >= 0 (dimensions sharing a name must agree,
 * checked when planning). Drops the current plan. */
plumb_status plumb_model_set_input_shape(plumb_model* model, size_t k, const int64_t* dims, size_t rank);

/* Plans for the current input shapes (every input's shape must be known) and says how many bytes
 * the arena needs (PLUMB_ARENA_ALIGN - 1 bytes of alignment slack included). */
plumb_status plumb_model_arena_size(plumb_model* model, size_t* bytes);
/* Plans for the current input shapes and lays the plan out in `arena` (`arena_bytes` bytes, at
 * least what plumb_model_arena_size says; the model uses it until the next plan or destroy), or,
 * with arena NULL, in an arena the library allocates and owns. Bindings are dropped. */
plumb_status plumb_model_plan(plumb_model* model, void* arena, size_t arena_bytes);

/* Binds input k to `bytes` bytes at `data` (exactly the planned input's size, aligned to its
 * element size), read in place by every run until bound again or re-planned. */
plumb_status plumb_model_bind_input(plumb_model* model, size_t k, const void* data, size_t bytes);
/* Binds output k to `bytes` bytes at `data`: each run copies output k there (the run fails when
 * the output does not fit). NULL unbinds it. */
plumb_status plumb_model_bind_output(plumb_model* model, size_t k, void* data, size_t bytes);

/* Runs the plan on the bound inputs; copies each bound output into its buffer. */
plumb_status plumb_model_run(plumb_model* model);

/* Output k of the last successful run, where it is (possibly inside the arena): valid until the
 * next plan or run. */
plumb_status plumb_model_output_data(plumb_model* model, size_t k, const void** data, size_t* bytes);

/* Bytes one element takes in a buffer (0 for string); "f32" etc. for a dtype (NULL if unknown). */
size_t plumb_dtype_size(plumb_dtype dtype);
const char* plumb_dtype_name(plumb_dtype dtype);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* PLUMB_H */
