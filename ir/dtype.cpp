#include "ir/dtype.h"

#include "ir/schema/plumb_generated.h"

namespace plumb::ir {

// The flatbuffer DType enum must list spec/dtypes.def's entries in the same order.
#define PLUMB_DTYPE(Enum, mnemonic, bits, onnx_code, category)                      \
  static_assert(static_cast<int>(fb::DType::Enum) == static_cast<int>(DType::Enum), \
                #Enum " drifted from spec/dtypes.def");
#include "spec/dtypes.def"

namespace {
// The name is an array, not a string_view: a pointer would be a dynamic relocation per dtype in a
// position-independent build (issue 18, the tiny runtime's size). A longer name does not compile.
struct DTypeInfo {
  char name[12];
  int bits;
  int onnx_code;
  DTypeCategory category;
};
constexpr DTypeInfo kInfo[] = {
#define PLUMB_DTYPE(Enum, mnemonic, bits, onnx_code, category) \
  {mnemonic, bits, onnx_code, DTypeCategory::category},
#include "spec/dtypes.def"
};
const DTypeInfo& info(DType dt) { return kInfo[static_cast<int>(dt)]; }
}  // namespace

std::string_view dtype_name(DType dt) { return std::string_view(info(dt).name); }
int dtype_bits(DType dt) { return info(dt).bits; }
int dtype_onnx_code(DType dt) { return info(dt).onnx_code; }
DTypeCategory dtype_category(DType dt) { return info(dt).category; }

std::optional<DType> dtype_from_name(std::string_view name) {
  for (int i = 0; i < kNumDTypes; ++i)
    if (std::string_view(kInfo[i].name) == name) return static_cast<DType>(i);
  return std::nullopt;
}

std::optional<DType> dtype_from_onnx_code(int code) {
  for (int i = 0; i < kNumDTypes; ++i)
    if (kInfo[i].onnx_code == code) return static_cast<DType>(i);
  return std::nullopt;
}

uint64_t dtype_storage_bytes(DType dt, uint64_t n) {
  const int bits = dtype_bits(dt);
  if (bits == 0) return 0;
  if (bits >= 8) return n * static_cast<uint64_t>(bits / 8);
  const uint64_t per_byte = 8 / static_cast<uint64_t>(bits);
  return (n + per_byte - 1) / per_byte;
}

}  // namespace plumb::ir
