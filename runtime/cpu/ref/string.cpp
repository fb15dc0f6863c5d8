// ref kernels of the string op (spec/ops/string.md). UTF-8 throughout; no host locale is used.
#include <cstring>

#include "runtime/cpu/ref/kernel.h"

#ifdef PLUMB_HAVE_RE2
#include <re2/re2.h>
#endif

namespace plumb::rt::ref {

namespace {

// Decodes one UTF-8 code point at s[i]; returns its length or 0 when malformed (overlong forms,
// surrogates and values above U+10FFFF are malformed).
size_t decode_utf8(const std::string& s, size_t i, uint32_t* cp) {
  const auto b = [&](size_t k) { return static_cast<uint8_t>(s[i + k]); };
  const size_t left = s.size() - i;
  const uint8_t c0 = b(0);
  if (c0 < 0x80) return *cp = c0, 1;
  size_t len;
  uint32_t v, min;
  if ((c0 & 0xE0) == 0xC0)
    len = 2, v = c0 & 0x1F, min = 0x80;
  else if ((c0 & 0xF0) == 0xE0)
    len = 3, v = c0 & 0x0F, min = 0x800;
  else if ((c0 & 0xF8) == 0xF0)
    len = 4, v = c0 & 0x07, min = 0x10000;
  else
    return 0;
  if (left < len) return 0;
  for (size_t k = 1; k < len; ++k) {
    if ((b(k) & 0xC0) != 0x80) return 0;
    v = (v << 6) | (b(k) & 0x3F);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  *cp = v;
  return len;
}

void encode_utf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// The case map of spec/ops/string.md: simple 1:1 mappings in fixed ranges, identity elsewhere.
uint32_t to_upper(uint32_t c) {
  if (c >= 'a' && c <= 'z') return c - 32;
  if (c >= 0xE0 && c <= 0xFE && c != 0xF7) return c - 32;
  if (c >= 0x3B1 && c <= 0x3C9 && c != 0x3C2) return c - 32;
  if (c >= 0x430 && c <= 0x44F) return c - 32;
  if (c >= 0x450 && c <= 0x45F) return c - 80;
  return c;
}
uint32_t to_lower(uint32_t c) {
  if (c >= 'A' && c <= 'Z') return c + 32;
  if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 32;
  if (c >= 0x391 && c <= 0x3A9 && c != 0x3A2) return c + 32;
  if (c >= 0x410 && c <= 0x42F) return c + 32;
  if (c >= 0x400 && c <= 0x40F) return c + 80;
  return c;
}

Status change_case(const std::string& in, bool upper, std::string* out) {
  out->clear();
  for (size_t i = 0; i < in.size();) {
    uint32_t cp = 0;
    const size_t len = decode_utf8(in, i, &cp);
    if (len == 0) return runtime_error("string.R1", strfmt("invalid UTF-8 at byte %zu", i));
    encode_utf8(upper ? to_upper(cp) : to_lower(cp), out);
    i += len;
  }
  return Status::ok();
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

// spec/ops/string.md split: "" = runs of non-whitespace; otherwise split at each delimiter.
std::vector<std::string> split_one(const std::string& s, const std::string& delim, int64_t maxsplit) {
  std::vector<std::string> parts;
  int64_t splits = 0;
  if (delim.empty()) {
    size_t i = 0;
    while (i < s.size()) {
      while (i < s.size() && is_space(s[i])) ++i;
      if (i == s.size()) break;
      if (maxsplit >= 0 && splits == maxsplit) {
        parts.push_back(s.substr(i));  // the rest, as one part
        break;
      }
      size_t j = i;
      while (j < s.size() && !is_space(s[j])) ++j;
      parts.push_back(s.substr(i, j - i));
      ++splits;
      i = j;
    }
    return parts;
  }
  size_t start = 0;
  while (true) {
    if (maxsplit >= 0 && splits == maxsplit) break;
    const size_t at = s.find(delim, start);
    if (at == std::string::npos) break;
    parts.push_back(s.substr(start, at - start));
    start = at + delim.size();
    ++splits;
  }
  parts.push_back(s.substr(start));
  return parts;
}

Status split_kernel(KernelCtx& cx) {
  const Tensor& a = cx.inputs[0]->tensor();
  const std::string& delim = ir::attrs<ir::Op::String>(cx.node).pattern;
  const int64_t maxsplit = ir::attrs<ir::Op::String>(cx.node).maxsplit;
  std::vector<std::vector<std::string>> all(static_cast<size_t>(a.numel()));
  int64_t m = 0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    all[i] = split_one(a.strings()[i], delim, maxsplit);
    m = std::max<int64_t>(m, static_cast<int64_t>(all[i].size()));
  }
  std::vector<int64_t> shape = a.shape;
  shape.push_back(m);
  Tensor tokens = Tensor::allocate(ir::DType::String, shape);
  Tensor counts = Tensor::allocate(ir::DType::I64, a.shape);
  for (int64_t i = 0; i < a.numel(); ++i) {
    counts.as<int64_t>()[i] = static_cast<int64_t>(all[i].size());
    for (size_t j = 0; j < all[i].size(); ++j)
      tokens.strings()[i * m + static_cast<int64_t>(j)] = std::move(all[i][j]);
  }
  *cx.outputs[0] = std::move(tokens);
  *cx.outputs[1] = std::move(counts);
  return Status::ok();
}

Status regex_kernel(KernelCtx& cx) {
#ifdef PLUMB_HAVE_RE2
  const RE2 re(ir::attrs<ir::Op::String>(cx.node).pattern, RE2::Quiet);
  if (!re.ok()) return runtime_error("string.R2", "invalid RE2 pattern: " + re.error());
  const Tensor& a = cx.inputs[0]->tensor();
  Tensor& r = cx.outputs[0]->tensor();
  for (int64_t i = 0; i < a.numel(); ++i) r.as<bool>()[i] = RE2::FullMatch(a.strings()[i], re);
  return Status::ok();
#else
  return runtime_error("string.R2",
                       "regex_full_match needs RE2, which this build of the runtime does not have");
#endif
}

}  // namespace

template <>
Status kernel<ir::Op::String>(KernelCtx& cx) {
  const auto kind = ir::attrs<ir::Op::String>(cx.node).kind;
  if (kind == ir::StringKind::Split) return split_kernel(cx);
  if (kind == ir::StringKind::RegexFullMatch) return regex_kernel(cx);
  const Tensor& a = cx.inputs[0]->tensor();
  Tensor& r = cx.outputs[0]->tensor();
  for (int64_t i = 0; i < a.numel(); ++i) {
    if (kind == ir::StringKind::Concat) {
      r.strings()[i] = a.strings()[i] + cx.inputs[1]->tensor().strings()[i];
    } else {
      PLUMB_RETURN_IF_ERROR(change_case(a.strings()[i], kind == ir::StringKind::Upper, &r.strings()[i]));
    }
  }
  return Status::ok();
}

}  // namespace plumb::rt::ref
