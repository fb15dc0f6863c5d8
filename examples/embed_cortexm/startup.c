/* Reset for the Cortex-M example on qemu-system-arm's mps2-an385: the vector table (the initial
 * stack pointer and the reset handler; every fault stops the run with a message over semihosting)
 * and a reset handler that copies .data from the flash to the RAM and hands over to newlib's rdimon
 * crt0 (_start: clears .bss, opens the semihosting streams, runs the constructors, calls main,
 * exits through semihosting with main's status). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

extern uint8_t __data_start__[], __data_end__[], __data_load__[], __stack[];
extern void _start(void);
void plumb_reset_handler(void);

static void write_stderr(const char* text) {
  /* SYS_WRITE0 (0x04): a NUL-terminated string to the debugger's console, no C library needed. */
  register uintptr_t op __asm__("r0") = 0x04;
  register const char* arg __asm__("r1") = text;
  __asm__ volatile("bkpt 0xab" : "+r"(op) : "r"(arg) : "memory");
}

static void fault_handler(void) {
  write_stderr("plumb_cortexm_example: fault (HardFault, MemManage, BusFault or UsageFault)\n");
  abort();
}

void plumb_reset_handler(void) {
  memcpy(__data_start__, __data_load__, (size_t)(__data_end__ - __data_start__));
  _start();
}

/* The first 16 entries (the core's exceptions): the stack top, reset, NMI and the faults. */
__attribute__((section(".vectors"), used)) static void (*const vectors[16])(void) = {
    (void (*)(void))__stack, plumb_reset_handler, fault_handler, fault_handler,
    fault_handler,           fault_handler,       fault_handler,
};
