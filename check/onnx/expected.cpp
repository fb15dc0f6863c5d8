#include "check/onnx/expected.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "check/model_inputs.h"
#include "frontends/onnx/npy.h"

namespace plumb::check {

namespace {

// ---- a small JSON reader (only what Polygraphy's files need) --------------------------------

struct Json {
  enum class Kind { Null, Bool, Number, String, Array, Object } kind = Kind::Null;
  std::string str;
  std::vector<Json> items;                            // Array
  std::vector<std::pair<std::string, Json>> members;  // Object, in file order
  const Json* get(const std::string& key) const {
    for (const auto& [k, v] : members)
      if (k == key) return &v;
    return nullptr;
  }
};

constexpr int kMaxJsonDepth = 64;

class JsonParser {
 public:
  explicit JsonParser(const std::string& text) : s_(text) {}

  Expected<Json> parse() {
    Json v;
    PLUMB_RETURN_IF_ERROR(value(v, 0));
    skip_ws();
    if (pos_ != s_.size()) return fail("trailing characters");
    return v;
  }

 private:
  Status fail(const std::string& what) const {
    return invalid_input("json: " + what + " at byte " + std::to_string(pos_));
  }
  void skip_ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\r' || s_[pos_] == '\t'))
      ++pos_;
  }
  bool literal(const char* word) {
    const size_t n = std::char_traits<char>::length(word);
    if (s_.compare(pos_, n, word) != 0) return false;
    pos_ += n;
    return true;
  }
  static void put_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  Status string(std::string& out) {
    ++pos_;  // opening quote
    while (pos_ < s_.size() && s_[pos_] != '"') {
      char c = s_[pos_++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= s_.size()) break;
      c = s_[pos_++];
      switch (c) {
        case '"':
        case '\\':
        case '/': out += c; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          if (pos_ + 4 > s_.size()) return fail("short \\u escape");
          char* end = nullptr;
          const std::string hex = s_.substr(pos_, 4);
          const uint32_t cp = static_cast<uint32_t>(std::strtoul(hex.c_str(), &end, 16));
          if (*end != '\0') return fail("bad \\u escape");
          pos_ += 4;
          put_utf8(out, cp);  // surrogate pairs are not joined (not needed for array data)
          break;
        }
        default: return fail("bad escape");
      }
    }
    if (pos_ >= s_.size()) return fail("unterminated string");
    ++pos_;
    return Status::ok();
  }
  Status value(Json& v, int depth) {
    if (depth > kMaxJsonDepth) return fail("nesting deeper than 64");
    skip_ws();
    if (pos_ >= s_.size()) return fail("unexpected end");
    const char c = s_[pos_];
    if (c == '{') {
      v.kind = Json::Kind::Object;
      ++pos_;
      skip_ws();
      if (pos_ < s_.size() && s_[pos_] == '}') return ++pos_, Status::ok();
      for (;;) {
        skip_ws();
        if (pos_ >= s_.size() || s_[pos_] != '"') return fail("expected a member name");
        std::string key;
        PLUMB_RETURN_IF_ERROR(string(key));
        skip_ws();
        if (pos_ >= s_.size() || s_[pos_] != ':') return fail("expected ':'");
        ++pos_;
        Json m;
        PLUMB_RETURN_IF_ERROR(value(m, depth + 1));
        v.members.emplace_back(std::move(key), std::move(m));
        skip_ws();
        if (pos_ < s_.size() && s_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < s_.size() && s_[pos_] == '}') return ++pos_, Status::ok();
        return fail("expected ',' or '}'");
      }
    }
    if (c == '[') {
      v.kind = Json::Kind::Array;
      ++pos_;
      skip_ws();
      if (pos_ < s_.size() && s_[pos_] == ']') return ++pos_, Status::ok();
      for (;;) {
        Json m;
        PLUMB_RETURN_IF_ERROR(value(m, depth + 1));
        v.items.push_back(std::move(m));
        skip_ws();
        if (pos_ < s_.size() && s_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < s_.size() && s_[pos_] == ']') return ++pos_, Status::ok();
        return fail("expected ',' or ']'");
      }
    }
    if (c == '"') {
      v.kind = Json::Kind::String;
      return string(v.str);
    }
    if (literal("null")) return Status::ok();
    if (literal("true") || literal("false")) {
      v.kind = Json::Kind::Bool;
      return Status::ok();
    }
    const size_t start = pos_;
    while (pos_ < s_.size() && std::string("+-0123456789.eE").find(s_[pos_]) != std::string::npos) ++pos_;
    if (pos_ == start) return fail("unexpected character");
    v.kind = Json::Kind::Number;
    v.str = s_.substr(start, pos_ - start);
    return Status::ok();
  }

  const std::string& s_;
  size_t pos_ = 0;
};

// Polygraphy's legacy format kept np.save bytes as a latin-1 string: code points < 256 are bytes.
bool latin1_bytes(const std::string& utf8, std::string* out) {
  out->clear();
  for (size_t i = 0; i < utf8.size(); ++i) {
    const auto c = static_cast<unsigned char>(utf8[i]);
    if (c < 0x80) {
      *out += static_cast<char>(c);
    } else if ((c & 0xE0) == 0xC0 && i + 1 < utf8.size()) {
      const uint32_t cp = ((c & 0x1Fu) << 6) | (static_cast<unsigned char>(utf8[++i]) & 0x3Fu);
      if (cp > 0xFF) return false;
      *out += static_cast<char>(cp);
    } else {
      return false;
    }
  }
  return true;
}

// An encoded ndarray (or a LazyArray around one) -> its np.save bytes; false when `v` is not one.
Expected<bool> array_bytes(const Json& v, std::string* npy) {
  if (v.kind != Json::Kind::Object) return false;
  if (const Json* inner = v.get("values")) return array_bytes(*inner, npy);
  const Json* a = v.get("array");
  if (!a || a->kind != Json::Kind::String) return false;
  auto b = decode_base64(a->str);
  if (b) {
    *npy = std::move(*b);
    return true;
  }
  if (latin1_bytes(a->str, npy)) return true;
  return invalid_input("polygraphy json: an array is neither base64 nor latin-1 np.save data");
}

// The {name: array} object to read: a RunResults' first runner's first iteration's outputs, the
// first dict of a saved-inputs list, or the object itself.
const Json* outputs_object(const Json& root) {
  const Json* v = &root;
  if (const Json* lst = v->get("lst")) {
    if (lst->kind != Json::Kind::Array || lst->items.empty()) return nullptr;
    const Json& runner = lst->items[0];  // [name, [IterationResult, ...]]
    if (runner.kind != Json::Kind::Array || runner.items.size() != 2) return nullptr;
    const Json& iters = runner.items[1];
    if (iters.kind != Json::Kind::Array || iters.items.empty()) return nullptr;
    v = &iters.items[0];
  }
  if (v->kind == Json::Kind::Array) {
    if (v->items.empty()) return nullptr;
    v = &v->items[0];
  }
  if (const Json* outs = v->get("outputs")) v = outs;
  return v->kind == Json::Kind::Object ? v : nullptr;
}

Expected<std::string> read_whole(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return invalid_input("cannot open file");
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

bool is_dir(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string stem(const std::string& file) {
  std::string s = file.substr(file.find_last_of('/') + 1);
  return s.substr(0, s.find_last_of('.'));
}

// "<prefix><digits>.<ext>": the ONNX test-data layout's input_<k> / output_<k>.
bool is_indexed(const std::string& base, const std::string& prefix) {
  if (base.rfind(prefix, 0) != 0) return false;
  size_t i = prefix.size(), digits = 0;
  while (i < base.size() && base[i] >= '0' && base[i] <= '9') ++i, ++digits;
  return digits > 0 && i < base.size() && base[i] == '.';
}

// names.json in an expected folder: {"<file>.npy" (or its stem): "<ONNX tensor name>", ...}, for
// tensor names a file name cannot hold ('/', ':'). Anything else in a file of that name (a stray
// names.json of another tool) is not a mapping: it is ignored, and `why` says so.
std::map<std::string, std::string> read_npy_names(const std::string& path, std::string* why) {
  std::map<std::string, std::string> names;
  auto text = read_whole(path);
  if (!text) {
    *why = "cannot read it";
    return names;
  }
  auto root = JsonParser(*text).parse();
  if (!root || root->kind != Json::Kind::Object) {
    *why = root ? "not a JSON object" : root.status().message();
    return names;
  }
  for (const auto& [file, name] : root->members) {
    if (name.kind != Json::Kind::String || name.str.empty()) {
      *why = "'" + file + "' does not map to a tensor name (a string)";
      return {};
    }
    names[file] = name.str;
  }
  return names;
}

// `npy_names`: names.json's mapping of .npy files of the folder to tensor names (file name or stem).
Status read_one(const std::string& path, std::vector<ExpectedValue>& out,
                const std::map<std::string, std::string>& npy_names = {}) {
  const std::string base = path.substr(path.find_last_of('/') + 1);
  if (ends_with(base, ".pb")) {
    if (is_indexed(base, "input_")) return Status::ok();
    PLUMB_ASSIGN_OR_RETURN(onnx::DataValue v, onnx::read_data_file(path));
    ExpectedValue e{path, v.name, -1, std::move(v)};
    if (is_indexed(base, "output_")) e.output = std::atoi(base.c_str() + 7);
    out.push_back(std::move(e));
  } else if (ends_with(base, ".npy")) {
    auto named = npy_names.find(base);
    if (named == npy_names.end()) named = npy_names.find(stem(path));
    const bool mapped = named != npy_names.end();
    if (!mapped && is_indexed(base, "input_")) return Status::ok();  // the inputs' layout, as for .pb
    PLUMB_ASSIGN_OR_RETURN(onnx::Tensor t, onnx::read_npy(path));
    t.name = mapped ? named->second : stem(path);
    const int output = !mapped && is_indexed(base, "output_") ? std::atoi(base.c_str() + 7) : -1;
    if (output >= 0) t.name.clear();  // graph output k, whatever its name (as output_<k>.pb)
    out.push_back({path, t.name, output, onnx::DataValue::of_tensor(std::move(t))});
  } else if (ends_with(base, ".npz")) {
    PLUMB_ASSIGN_OR_RETURN(std::vector<onnx::Tensor> ts, onnx::read_npz(path));
    for (onnx::Tensor& t : ts)
      out.push_back({path + ":" + t.name, t.name, -1, onnx::DataValue::of_tensor(std::move(t))});
  } else if (ends_with(base, ".json")) {
    auto text = read_whole(path);
    if (!text) return onnx::place_in_file(text.status(), path);
    auto ts = parse_polygraphy_json(*text);
    if (!ts) return onnx::place_in_file(ts.status(), path);
    for (onnx::Tensor& t : *ts)
      out.push_back({path + ":" + t.name, t.name, -1, onnx::DataValue::of_tensor(std::move(t))});
  }
  return Status::ok();
}

}  // namespace

Expected<std::string> decode_base64(const std::string& text) {
  static const std::string kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve(text.size() / 4 * 3);
  uint32_t acc = 0;
  int bits = 0, pad = 0;
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == '=') {
      ++pad;
      continue;
    }
    const size_t k = kAlphabet.find(c);
    if (k == std::string::npos || pad > 0) return invalid_input("base64: invalid character");
    acc = (acc << 6) | static_cast<uint32_t>(k);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xFF);
    }
  }
  if (pad > 2 || bits >= 6) return invalid_input("base64: bad length");
  return out;
}

Expected<std::vector<onnx::Tensor>> parse_polygraphy_json(const std::string& text) {
  PLUMB_ASSIGN_OR_RETURN(Json root, JsonParser(text).parse());
  const Json* outs = outputs_object(root);
  if (!outs)
    return invalid_input("polygraphy json: no outputs (expected a RunResults or a list of {name: array})");
  std::vector<onnx::Tensor> tensors;
  for (const auto& [name, v] : outs->members) {
    if (name == "polygraphy_class") continue;
    std::string npy;
    PLUMB_ASSIGN_OR_RETURN(bool is_array, array_bytes(v, &npy));
    if (!is_array) continue;
    auto t = onnx::parse_npy(npy, name);
    if (!t) return invalid_input("polygraphy json: array '" + name + "': " + t.status().to_string());
    tensors.push_back(std::move(*t));
  }
  return tensors;
}

Expected<std::vector<ExpectedValue>> read_expected(const std::string& path,
                                                   std::vector<std::string>* ignored) {
  std::vector<ExpectedValue> out;
  auto note = [&](const std::string& what) {
    if (ignored) ignored->push_back(what);
  };
  if (!is_dir(path)) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return invalid_input("no such file or folder");
    PLUMB_RETURN_IF_ERROR(read_one(path, out));
    if (out.empty()) return invalid_input("no expected values (.pb, .npy, .npz or Polygraphy .json)");
    return out;
  }
  std::vector<std::string> files;
  if (DIR* d = ::opendir(path.c_str())) {
    while (dirent* e = ::readdir(d)) {
      const std::string n = e->d_name;
      if (ends_with(n, ".pb") || ends_with(n, ".npy") || ends_with(n, ".npz") || ends_with(n, ".json"))
        files.push_back(n);
    }
    ::closedir(d);
  } else {
    return invalid_input("cannot read the expected folder");
  }
  std::sort(files.begin(), files.end());
  std::map<std::string, std::string> npy_names;
  if (std::find(files.begin(), files.end(), kNamesFile) != files.end()) {
    std::string why;
    npy_names = read_npy_names(path + "/" + kNamesFile, &why);
    if (!why.empty()) note(std::string(kNamesFile) + " (not a {file.npy: tensor name} mapping: " + why + ")");
    for (const auto& [file, name] : npy_names) {
      const bool npy = ends_with(file, ".npy");
      if (std::find(files.begin(), files.end(), npy ? file : file + ".npy") == files.end())
        note(std::string(kNamesFile) + ": '" + file + "' (no such .npy file in the folder)");
    }
  }
  for (const std::string& f : files)
    if (f != kNamesFile) PLUMB_RETURN_IF_ERROR(read_one(path + "/" + f, out, npy_names));
  return out;
}

}  // namespace plumb::check
