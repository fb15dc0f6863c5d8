/* Printing a run's outputs, one line each: "output K 'NAME' DTYPE[DIMS]: V V V ...", f32 as %.9g
 * and f64 as %.17g (both read back to the same bits), integers and bool in decimal, the other float
 * types as their bits in hex. Shared by plumb_embed_example and the Cortex-M example
 * (examples/embed_cortexm), whose printouts tests/embed/cortexm_qemu.sh compares byte for byte. */
#ifndef PLUMB_EXAMPLE_PRINT_H
#define PLUMB_EXAMPLE_PRINT_H

#include "plumb.h"

/* Output k from the program's buffer `bound` (the run copied it there), or from where the run left
 * it when `bound` is NULL. */
void print_output(plumb_model* m, size_t k, const void* bound);

#endif /* PLUMB_EXAMPLE_PRINT_H */
