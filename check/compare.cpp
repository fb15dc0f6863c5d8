#include "check/compare.h"

#include <cmath>
#include <cstring>

#include "runtime/cpu/ref/dispatch.h"

namespace plumb::check {

namespace {

std::string shape_str(const std::vector<int64_t>& s) { return ir::shape_to_string(ir::static_shape(s)); }

// Element k of a tensor as double (floats and ints), for comparison.
double element(const rt::Tensor& t, int64_t k) {
  return rt::visit_dtype(t.dtype, [&](auto tag) -> double {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, std::string>) {
      return 0.0;
    } else if constexpr (rt::is_narrow_float_v<T>) {
      return rt::to_f64(t.as<T>()[k]);
    } else {
      return static_cast<double>(t.as<T>()[k]);
    }
  });
}

Comparison compare_tensors(const rt::Tensor& a, const rt::Tensor& e, const Tolerance& tol) {
  Comparison c;
  if (a.dtype != e.dtype) {
    c.match = false;
    c.why = "dtype " + std::string(ir::dtype_name(a.dtype)) + ", expected " +
            std::string(ir::dtype_name(e.dtype));
    return c;
  }
  if (a.shape != e.shape) {
    c.match = false;
    c.why = "shape " + shape_str(a.shape) + ", expected " + shape_str(e.shape);
    return c;
  }
  c.elements = a.numel();
  const bool fl = ir::is_float(a.dtype);
  for (int64_t k = 0; k < c.elements; ++k) {
    bool ok;
    if (a.dtype == ir::DType::String) {
      ok = a.strings()[k] == e.strings()[k];
    } else {
      const double x = element(a, k), y = element(e, k);
      if (!fl) {
        ok = x == y;  // integer dtypes up to 64 bits: compare exactly below
        if (ok && (a.dtype == ir::DType::I64 || a.dtype == ir::DType::U64))
          ok = std::memcmp(a.as<uint8_t>() + 8 * k, e.as<uint8_t>() + 8 * k, 8) == 0;
      } else if (std::isnan(x) || std::isnan(y)) {
        ok = std::isnan(x) && std::isnan(y);
      } else if (std::isinf(x) || std::isinf(y)) {
        ok = x == y;
      } else {
        const double d = std::fabs(x - y);
        ok = d <= tol.atol + tol.rtol * std::fabs(y);
        c.max_abs = std::max(c.max_abs, d);
        if (y != 0) c.max_rel = std::max(c.max_rel, d / std::fabs(y));
      }
      if (!ok && c.mismatches == 0) c.why = strfmt("element %lld is %.9g, expected %.9g", (long long)k, x, y);
    }
    if (!ok) {
      if (c.mismatches == 0 && c.why.empty()) c.why = "element " + std::to_string(k) + " differs";
      ++c.mismatches;
      c.match = false;
    }
  }
  if (!c.match)
    c.why += strfmt(" (%lld of %lld elements differ)", (long long)c.mismatches, (long long)c.elements);
  return c;
}

}  // namespace

Comparison compare(const rt::RtValue& actual, const rt::RtValue& expected, const Tolerance& tol) {
  if (actual.index() != expected.index()) {
    Comparison c;
    c.match = false;
    c.why = "value kind " + ir::type_to_string(rt::type_of(actual)) + ", expected " +
            ir::type_to_string(rt::type_of(expected));
    return c;
  }
  if (actual.is_tensor()) return compare_tensors(actual.tensor(), expected.tensor(), tol);
  if (const auto* s = std::get_if<rt::SequenceValue>(&actual)) {
    const auto& es = std::get<rt::SequenceValue>(expected);
    if (s->items.size() != es.items.size()) {
      Comparison c;
      c.match = false;
      c.why = strfmt("sequence of %zu, expected %zu", s->items.size(), es.items.size());
      return c;
    }
    for (size_t i = 0; i < s->items.size(); ++i) {
      Comparison c = compare_tensors(s->items[i], es.items[i], tol);
      if (!c.match) {
        c.why = "sequence element " + std::to_string(i) + ": " + c.why;
        return c;
      }
    }
    if (s->maps.size() != es.maps.size()) {
      Comparison c;
      c.match = false;
      c.why = strfmt("sequence of %zu maps, expected %zu", s->maps.size(), es.maps.size());
      return c;
    }
    for (size_t i = 0; i < s->maps.size(); ++i) {
      Comparison c = compare(rt::RtValue(s->maps[i]), rt::RtValue(es.maps[i]), tol);
      if (!c.match) {
        c.why = "sequence element " + std::to_string(i) + ": " + c.why;
        return c;
      }
    }
    return Comparison{};
  }
  if (const auto* o = std::get_if<rt::OptionalValue>(&actual)) {
    const auto& eo = std::get<rt::OptionalValue>(expected);
    if (!o->value || !eo.value) {
      Comparison c;
      c.match = !o->value && !eo.value;
      if (!c.match)
        c.why = o->value ? "optional has a value, expected none" : "optional is empty, expected a value";
      return c;
    }
    return compare(*o->value, *eo.value, tol);
  }
  const auto& m = std::get<rt::MapValue>(actual);
  const auto& em = std::get<rt::MapValue>(expected);
  Comparison k = compare_tensors(m.keys, em.keys, tol);
  if (!k.match) return k;
  return compare_tensors(m.values, em.values, tol);
}

}  // namespace plumb::check
