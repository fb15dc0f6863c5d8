// The narrow floating formats (spec/numerics.md): storage types holding raw bits, and exact
// conversions. Widening to float/double is exact for every format here. Narrowing rounds to
// nearest, ties to even; overflow goes to inf where the format has one, else (saturate) to the
// largest finite value or (no saturate) to NaN, as spec/numerics.md and ONNX Cast define.
// Implemented in float_formats.cpp.
#pragma once

#include <cstdint>

namespace plumb::rt {

struct f16 {
  uint16_t bits;
};
struct bf16 {
  uint16_t bits;
};
struct f8e4m3fn {
  uint8_t bits;
};
struct f8e4m3fnuz {
  uint8_t bits;
};
struct f8e5m2 {
  uint8_t bits;
};
struct f8e5m2fnuz {
  uint8_t bits;
};
struct f8e8m0 {
  uint8_t bits;
};
struct f4e2m1 {
  uint8_t bits;
};  // low 4 bits used (one element per byte at run time)

// Exact widening.
double to_f64(f16 x);
double to_f64(bf16 x);
double to_f64(f8e4m3fn x);
double to_f64(f8e4m3fnuz x);
double to_f64(f8e5m2 x);
double to_f64(f8e5m2fnuz x);
double to_f64(f8e8m0 x);
double to_f64(f4e2m1 x);

// Narrowing from double with round-to-nearest-even (a single rounding: no double rounding via
// f32). `saturate` applies to the formats whose ONNX Cast has the attribute (f8 kinds, f4e2m1).
enum class Rounding : uint8_t { kNearestEven, kUp, kDown };  // kUp/kDown only for f8e8m0
f16 to_f16(double x);
bf16 to_bf16(double x);
f8e4m3fn to_f8e4m3fn(double x, bool saturate);
f8e4m3fnuz to_f8e4m3fnuz(double x, bool saturate);
f8e5m2 to_f8e5m2(double x, bool saturate);
f8e5m2fnuz to_f8e5m2fnuz(double x, bool saturate);
f8e8m0 to_f8e8m0(double x, bool saturate, Rounding r);
f4e2m1 to_f4e2m1(double x, bool saturate);

}  // namespace plumb::rt
