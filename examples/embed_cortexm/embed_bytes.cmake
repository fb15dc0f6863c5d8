# cmake -DIN=FILE -DOUT=FILE.c -DNAME=SYMBOL -P embed_bytes.cmake: FILE as a C array in read-only
# memory (the flash), 64-byte aligned (a .plumb's constants are read in place at their alignment),
# `const uint8_t SYMBOL[]` and `const size_t SYMBOL_size`.
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" n)
math(EXPR bytes "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
# 16 bytes a line
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n  " body "${body}")
file(WRITE "${OUT}" "/* Generated from ${IN} by embed_bytes.cmake: do not edit. */
#include <stddef.h>
#include <stdint.h>

__attribute__((aligned(64))) const uint8_t ${NAME}[${bytes} + 1] = {
  ${body}0};
const size_t ${NAME}_size = ${bytes};
")
