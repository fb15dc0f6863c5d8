// ai.onnx.ml map operators (ZipMap, CastMap, DictVectorizer); conventions at the top of ml.cpp,
// shared helpers in ml_common.h.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "lowering/onnx/containers.h"
#include "lowering/onnx/helpers.h"
#include "lowering/onnx/ml_common.h"
#include "lowering/onnx/registry.h"

namespace plumb::lower::ml {

using BK = ir::BinaryKind;
using UK = ir::UnaryKind;
using CK = ir::CompareKind;
using RK = ir::ReduceKind;

namespace {

// ---- maps ----------------------------------------------------------------------------------------

ValueId map_part(LowerCtx& cx, ValueId m, ir::MapKind kind) { return cx.b.emit1(ir::MapAttrs{kind}, {m}); }

// y[i] = the value of the map entry whose key equals probe[i], else dflt; probe 1-D.
ValueId map_lookup(LowerCtx& cx, ValueId probe, ValueId keys, ValueId vals, ValueId dflt) {
  ValueId wide = cx.b.concat({shape_value(cx, probe), shape_value(cx, keys)}, 0);
  ValueId eq = cx.b.compare(CK::Eq, spread(cx, probe, wide, {0}), spread(cx, keys, wide, {1}));
  ValueId found = cx.b.reduce(RK::Max, eq, {1});
  ValueId at = arg_reduce(cx, ir::ArgKind::Max, eq, 1, true);
  // An empty map finds nothing; index 0 into an empty value list would be gather.R1, so the
  // gather reads a copy with one default appended.
  ValueId padded = cx.b.concat({vals, cx.b.reshape(dflt, cx.b.shape_const({1}))}, 0);
  return cx.b.select(found, cx.b.gather(ir::GatherKind::Axis, padded, at, 0),
                     spread(cx, dflt, shape_value(cx, probe), {}));
}

ValueId zero_of(LowerCtx& cx, DType dt) {
  if (ir::is_string(dt)) return string_const(cx, {}, {""});
  if (ir::is_float(dt)) return cx.b.scalar_float(dt, 0.0);
  return cx.b.scalar_int(dt, 0);
}

// ZipMap-1: row r of X [N, C] (a 1-D X is one row) becomes the map {label_c: X[r, c]}; the result
// is the sequence of the N maps, built by a `while` over the rows (sequence.C2 allows map elements).
// C must equal the label count: map construct refuses keys and values of different lengths (map.R1).
Status lower_zipmap(LowerCtx& cx, const OnnxNode& n) {
  const Strings strs = attr_strings(n, "classlabels_strings");
  const Ints ints = attr_ints(n, "classlabels_int64s");
  if (strs.empty() == ints.empty())
    return cx.invalid("ZipMap needs exactly one of classlabels_strings, classlabels_int64s");
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const ir::Type xt = cx.type(x);
  if (!xt.is_tensor() || xt.dtype != DType::F32 || xt.rank() < 1 || xt.rank() > 2)
    return cx.invalid("ZipMap input must be a 1-D or 2-D float tensor, got " + ir::type_to_string(xt));
  const int64_t c = static_cast<int64_t>(strs.empty() ? ints.size() : strs.size());
  if (xt.shape.back().is_static() && xt.shape.back().size != c)
    return cx.invalid("ZipMap input has " + std::to_string(xt.shape.back().size) + " columns for " +
                      std::to_string(c) + " labels");
  if (xt.rank() == 1) x = cx.b.reshape(x, cx.b.concat({cx.b.shape_const({1}), shape_value(cx, x)}, 0));
  const DType kdt = strs.empty() ? DType::I64 : DType::String;
  ValueId keys = strs.empty() ? i64_const(cx, {c}, ints) : string_const(cx, {c}, strs);
  const ir::Type elem = ir::Type::map(kdt, ir::Type::tensor(DType::F32, {}));
  const ir::Type seq = ir::Type::sequence(elem);
  ValueId rows = cx.b.reshape(static_slice(cx, shape_value(cx, x), {0}, {1}), cx.b.shape_const({}));
  const std::vector<ir::Type> carried = {ir::Type::tensor(DType::I64, {}), seq};
  auto cp = cx.b.begin_region(carried);
  ir::Region cond = cx.b.end_region({cx.b.compare(CK::Lt, cp[0], rows)});
  auto bp = cx.b.begin_region(carried);
  ValueId row = cx.b.gather(ir::GatherKind::Axis, x, bp[0], 0);
  ValueId m = cx.b.emit1(ir::MapAttrs{ir::MapKind::Construct}, {keys, row});
  ValueId len = seq_op(cx, ir::SequenceKind::Length, {bp[1]}, elem);
  ValueId grown = seq_op(cx, ir::SequenceKind::Insert, {bp[1], m, len}, elem);
  ir::Region body = cx.b.end_region({bin(cx, BK::Add, bp[0], cx.b.scalar_int(DType::I64, 1)), grown});
  std::vector<ValueId> res =
      cx.b.while_({cx.b.scalar_int(DType::I64, 0), seq_op(cx, ir::SequenceKind::Empty, {}, elem)},
                  std::move(cond), std::move(body));
  if (res.size() == 2) cx.set_output(n, 0, res[1]);
  return cx.error();
}

// CastMap-1 and DictVectorizer-1 (map inputs).
Status lower_maps(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId m, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const ir::Type mt = cx.type(m);
  if (mt.kind != ir::TypeKind::Map || !mt.elem) return cx.invalid(n.op_type + " input must be a map");
  const DType vdt = mt.elem->dtype;
  ValueId keys = map_part(cx, m, ir::MapKind::Keys), vals = map_part(cx, m, ir::MapKind::Values);
  if (n.op_type == "DictVectorizer") {
    // y [1, V]: for each vocabulary entry the map's value for it, else 0 ("" for strings).
    const bool by_string = n.has_attr("string_vocabulary");
    ValueId vocab;
    int64_t size = 0;
    if (by_string) {
      Strings v = attr_strings(n, "string_vocabulary");
      size = static_cast<int64_t>(v.size());
      vocab = string_const(cx, {size}, v);
    } else {
      Ints v = attr_ints(n, "int64_vocabulary");
      size = static_cast<int64_t>(v.size());
      vocab = i64_const(cx, {size}, v);
    }
    if (cx.type(vocab).dtype != mt.dtype)
      return cx.invalid("DictVectorizer: vocabulary and map keys differ in dtype");
    ValueId y = map_lookup(cx, vocab, keys, vals, zero_of(cx, vdt));
    cx.set_output(n, 0, cx.b.reshape(y, cx.b.shape_const({1, size})));
    return cx.error();
  }
  // CastMap: values in ascending key order (DENSE), or at position key in [0, max_map) (SPARSE).
  if (mt.dtype != DType::I64) return cx.invalid("CastMap input must be a map with int64 keys");
  PLUMB_ASSIGN_OR_RETURN(std::string cast_to, n.attr_string("cast_to", "TO_FLOAT"));
  PLUMB_ASSIGN_OR_RETURN(std::string form, n.attr_string("map_form", "DENSE"));
  PLUMB_ASSIGN_OR_RETURN(int64_t max_map, n.attr_int("max_map", 1));
  const DType to = cast_to == "TO_FLOAT" ? DType::F32 : cast_to == "TO_INT64" ? DType::I64 : DType::String;
  if (cast_to != "TO_FLOAT" && cast_to != "TO_INT64" && cast_to != "TO_STRING")
    return cx.invalid("CastMap: cast_to '" + cast_to + "'");
  ValueId y;
  if (form == "DENSE") {
    auto sorted = cx.b.emit(ir::SortAttrs{0, false}, {keys});
    y = cx.b.gather(ir::GatherKind::Axis, vals, sorted[1], 0);
  } else if (form == "SPARSE") {
    if (max_map < 0) return cx.invalid("CastMap: max_map must be >= 0");
    ValueId probe = cx.b.emit1(ir::IotaAttrs{DType::I64, 0}, {cx.b.shape_const({max_map})});
    y = map_lookup(cx, probe, keys, vals, zero_of(cx, vdt));
  } else {
    return cx.invalid("CastMap: map_form '" + form + "'");
  }
  cx.set_output(n, 0, cx.type(y).dtype == to ? y : cx.b.cast(y, to));
  return cx.error();
}

}  // namespace

void register_maps(Registry& r) {
  r.add_in(kMl, "CastMap", {1, kLatestMlOpset}, lower_maps);
  r.add_in(kMl, "DictVectorizer", {1, kLatestMlOpset}, lower_maps);
  r.add_in(kMl, "ZipMap", {1, kLatestMlOpset}, lower_zipmap);
}

}  // namespace plumb::lower::ml
