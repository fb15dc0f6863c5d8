// plumb.h: what a model says about its inputs and outputs, input shapes, and dtypes.
#include "api/model.h"

namespace plumb::capi {
namespace {

// plumb_dtype follows spec/dtypes.def's order, entry by entry (a new dtype fails the count).
static_assert(ir::kNumDTypes == PLUMB_STRING + 1, "a dtype was added to spec/dtypes.def: add it to plumb.h");
static_assert(static_cast<int>(PLUMB_BOOL) == static_cast<int>(ir::DType::Bool));
static_assert(static_cast<int>(PLUMB_I2) == static_cast<int>(ir::DType::I2));
static_assert(static_cast<int>(PLUMB_U2) == static_cast<int>(ir::DType::U2));
static_assert(static_cast<int>(PLUMB_I4) == static_cast<int>(ir::DType::I4));
static_assert(static_cast<int>(PLUMB_U4) == static_cast<int>(ir::DType::U4));
static_assert(static_cast<int>(PLUMB_I8) == static_cast<int>(ir::DType::I8));
static_assert(static_cast<int>(PLUMB_I16) == static_cast<int>(ir::DType::I16));
static_assert(static_cast<int>(PLUMB_I32) == static_cast<int>(ir::DType::I32));
static_assert(static_cast<int>(PLUMB_I64) == static_cast<int>(ir::DType::I64));
static_assert(static_cast<int>(PLUMB_U8) == static_cast<int>(ir::DType::U8));
static_assert(static_cast<int>(PLUMB_U16) == static_cast<int>(ir::DType::U16));
static_assert(static_cast<int>(PLUMB_U32) == static_cast<int>(ir::DType::U32));
static_assert(static_cast<int>(PLUMB_U64) == static_cast<int>(ir::DType::U64));
static_assert(static_cast<int>(PLUMB_F4E2M1) == static_cast<int>(ir::DType::F4E2M1));
static_assert(static_cast<int>(PLUMB_F8E4M3FN) == static_cast<int>(ir::DType::F8E4M3FN));
static_assert(static_cast<int>(PLUMB_F8E4M3FNUZ) == static_cast<int>(ir::DType::F8E4M3FNUZ));
static_assert(static_cast<int>(PLUMB_F8E5M2) == static_cast<int>(ir::DType::F8E5M2));
static_assert(static_cast<int>(PLUMB_F8E5M2FNUZ) == static_cast<int>(ir::DType::F8E5M2FNUZ));
static_assert(static_cast<int>(PLUMB_F8E8M0) == static_cast<int>(ir::DType::F8E8M0));
static_assert(static_cast<int>(PLUMB_F16) == static_cast<int>(ir::DType::F16));
static_assert(static_cast<int>(PLUMB_BF16) == static_cast<int>(ir::DType::BF16));
static_assert(static_cast<int>(PLUMB_F32) == static_cast<int>(ir::DType::F32));
static_assert(static_cast<int>(PLUMB_F64) == static_cast<int>(ir::DType::F64));
static_assert(static_cast<int>(PLUMB_STRING) == static_cast<int>(ir::DType::String));

Status input_info(plumb_model* m, size_t k, plumb_tensor_info* info) {
  PLUMB_RETURN_IF_ERROR(need_model(m));
  PLUMB_RETURN_IF_ERROR(check_index(k, m->inputs.size(), "input"));
  if (!info) return invalid_input("info is NULL");
  *info = m->inputs[k].view();
  return Status::ok();
}

Status output_info(plumb_model* m, size_t k, plumb_tensor_info* info) {
  PLUMB_RETURN_IF_ERROR(need_model(m));
  PLUMB_RETURN_IF_ERROR(check_index(k, m->outputs.size(), "output"));
  if (!info) return invalid_input("info is NULL");
  TensorInfo& out = m->outputs[k];
  const ir::Graph& g = *m->graph;
  const ir::ValueId v = g.body.results[k];
  if (m->have_outputs) {
    const rt::RtValue& value = m->planned.buffers->values[v];
    out.set(rt::type_of(value));
  } else if (m->planned.plan) {
    out.set(m->planned.plan->values[v].type);
  } else {
    out.set(g.type_of(v));
  }
  *info = out.view();
  return Status::ok();
}

Status set_input_shape(plumb_model* m, size_t k, const int64_t* dims, size_t rank) {
  PLUMB_RETURN_IF_ERROR(need_model(m));
  PLUMB_RETURN_IF_ERROR(check_index(k, m->inputs.size(), "input"));
  if (!dims && rank) return invalid_input("dims is NULL");
  const ir::Type& want = m->graph->type_of(m->graph->body.params[k]);
  std::vector<int64_t> got(dims, dims + rank);
  const std::string label = input_label(m, k);
  ir::Shape shape;
  for (int64_t d : got) shape.push_back(ir::Dim(d));
  const std::string shown = ir::type_to_string(ir::Type::tensor(want.dtype, shape));
  if (rank != want.shape.size())
    return invalid_input(label + ": expected " + ir::type_to_string(want) + ", got " + shown +
                         " (rank differs)");
  for (size_t d = 0; d < rank; ++d) {
    if (got[d] < 0)
      return invalid_input(label + ": dim " + std::to_string(d) + " is " + std::to_string(got[d]) +
                           ", a size must be >= 0");
    if (want.shape[d].is_static() && want.shape[d].size != got[d])
      return invalid_input(
          label + ": expected " + ir::type_to_string(want) + ", got " + shown +
          strfmt(" (dim %zu is %lld, not %lld)", d, (long long)got[d], (long long)want.shape[d].size));
  }
  drop_plan(m);
  m->inputs[k].dims = std::move(got);
  m->input_shape_known[k] = 1;
  return Status::ok();
}

// A code of spec/dtypes.def. The unsigned compare also refuses negative codes, and draws no
// always-false warning where the enum is one unsigned byte (Arm EABI's short enums, Cortex-M).
bool known_dtype(plumb_dtype dtype) {
  return static_cast<unsigned>(dtype) < static_cast<unsigned>(plumb::ir::kNumDTypes);
}

}  // namespace

void TensorInfo::set(const ir::Type& type) {
  dtype = type.dtype;
  dims.resize(type.shape.size());
  dim_names.resize(type.shape.size());
  for (size_t d = 0; d < type.shape.size(); ++d) {
    dims[d] = type.shape[d].is_static() ? type.shape[d].size : -1;
    dim_names[d] = type.shape[d].is_static() ? std::string() : type.shape[d].sym;
  }
  dim_name_ptrs.resize(dim_names.size());
  for (size_t d = 0; d < dim_names.size(); ++d) dim_name_ptrs[d] = dim_names[d].c_str();
}

plumb_tensor_info TensorInfo::view() const {
  plumb_tensor_info info;
  info.name = name.c_str();
  info.dtype = static_cast<plumb_dtype>(dtype);
  info.rank = dims.size();
  info.dims = dims.data();
  info.dim_names = dim_name_ptrs.data();
  return info;
}

}  // namespace plumb::capi

using plumb::capi::guarded;

extern "C" {

size_t plumb_model_num_inputs(const plumb_model* model) { return model ? model->inputs.size() : 0; }
size_t plumb_model_num_outputs(const plumb_model* model) { return model ? model->outputs.size() : 0; }

plumb_status plumb_model_input_info(plumb_model* model, size_t k, plumb_tensor_info* info) {
  return guarded(model, [&] { return plumb::capi::input_info(model, k, info); });
}

plumb_status plumb_model_output_info(plumb_model* model, size_t k, plumb_tensor_info* info) {
  return guarded(model, [&] { return plumb::capi::output_info(model, k, info); });
}

plumb_status plumb_model_set_input_shape(plumb_model* model, size_t k, const int64_t* dims, size_t rank) {
  return guarded(model, [&] { return plumb::capi::set_input_shape(model, k, dims, rank); });
}

size_t plumb_dtype_size(plumb_dtype dtype) {
  if (!plumb::capi::known_dtype(dtype)) return 0;
  return static_cast<size_t>(plumb::rt::runtime_elem_bytes(static_cast<plumb::ir::DType>(dtype)));
}

const char* plumb_dtype_name(plumb_dtype dtype) {
  if (!plumb::capi::known_dtype(dtype)) return nullptr;
  return plumb::ir::dtype_name(static_cast<plumb::ir::DType>(dtype)).data();
}

}  // extern "C"
