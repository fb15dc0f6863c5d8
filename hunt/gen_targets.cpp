#include "hunt/gen_targets.h"

#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>

namespace plumb::hunt {

namespace {

// Just enough JSON for the coverage report (docs/coverage-sequences.md): objects, arrays, strings
// (the escapes json_str writes, \uXXXX of ASCII), numbers, true, false, null.
struct Json {
  enum Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind = kNull;
  double number = 0;
  std::string text;
  std::vector<Json> items;
  std::vector<std::pair<std::string, Json>> fields;

  const Json* get(const std::string& key) const {
    for (const auto& [k, v] : fields)
      if (k == key) return &v;
    return nullptr;
  }
};

class Parser {
 public:
  explicit Parser(const std::string& s) : s_(s) {}

  Expected<Json> document() {
    Json j;
    if (Status st = value(j, 0); !st.is_ok()) return st;
    skip();
    if (at_ != s_.size()) return fail("text after the JSON value");
    return j;
  }

 private:
  const std::string& s_;
  size_t at_ = 0;

  Status fail(const std::string& why) const {
    return invalid_input("not a coverage report: " + why + " at byte " + std::to_string(at_));
  }
  void skip() {
    while (at_ < s_.size() && (s_[at_] == ' ' || s_[at_] == '\n' || s_[at_] == '\r' || s_[at_] == '\t'))
      ++at_;
  }
  bool eat(char c) {
    skip();
    if (at_ < s_.size() && s_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  Status string(std::string& out) {
    if (!eat('"')) return fail("a string expected");
    while (at_ < s_.size() && s_[at_] != '"') {
      char c = s_[at_++];
      if (c == '\\') {
        if (at_ >= s_.size()) break;
        const char e = s_[at_++];
        if (e == 'n')
          c = '\n';
        else if (e == 't')
          c = '\t';
        else if (e == 'r')
          c = '\r';
        else if (e == 'b')
          c = '\b';
        else if (e == 'f')
          c = '\f';
        else if (e == 'u') {
          int code = 0;
          for (int d = 0; d < 4; ++d, ++at_) {
            const char h = at_ < s_.size() ? s_[at_] : 'x';
            const int v = h >= '0' && h <= '9'   ? h - '0'
                          : h >= 'a' && h <= 'f' ? h - 'a' + 10
                          : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                                 : -1;
            if (v < 0) return fail("a bad \\u escape");
            code = code * 16 + v;
          }
          c = static_cast<char>(code & 0x7f);
        } else {
          c = e;  // \" \\ \/
        }
      }
      out += c;
    }
    if (at_ >= s_.size()) return fail("an unterminated string");
    ++at_;
    return Status::ok();
  }
  Status value(Json& j, int depth) {
    if (depth > 64) return fail("nesting too deep");
    skip();
    if (at_ >= s_.size()) return fail("unexpected end");
    const char c = s_[at_];
    if (c == '{') {
      ++at_;
      j.kind = Json::kObject;
      if (eat('}')) return Status::ok();
      do {
        std::string key;
        if (Status st = string(key); !st.is_ok()) return st;
        if (!eat(':')) return fail("':' expected");
        j.fields.emplace_back(std::move(key), Json{});
        if (Status st = value(j.fields.back().second, depth + 1); !st.is_ok()) return st;
      } while (eat(','));
      return eat('}') ? Status::ok() : fail("'}' expected");
    }
    if (c == '[') {
      ++at_;
      j.kind = Json::kArray;
      if (eat(']')) return Status::ok();
      do {
        j.items.emplace_back();
        if (Status st = value(j.items.back(), depth + 1); !st.is_ok()) return st;
      } while (eat(','));
      return eat(']') ? Status::ok() : fail("']' expected");
    }
    if (c == '"') {
      j.kind = Json::kString;
      return string(j.text);
    }
    for (const char* word : {"true", "false", "null"})
      if (s_.compare(at_, std::char_traits<char>::length(word), word) == 0) {
        at_ += std::char_traits<char>::length(word);
        j.kind = word[0] == 'n' ? Json::kNull : Json::kBool;
        j.number = word[0] == 't';
        return Status::ok();
      }
    const size_t start = at_;
    while (at_ < s_.size() && std::string("+-.eE0123456789").find(s_[at_]) != std::string::npos) ++at_;
    if (at_ == start) return fail("a value expected");
    j.kind = Json::kNumber;
    j.number = std::strtod(s_.substr(start, at_ - start).c_str(), nullptr);
    return Status::ok();
  }
};

}  // namespace

Expected<GenTargets> read_gen_targets(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return invalid_input("cannot read the file").with_place(path);
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string text = buf.str();
  auto doc = Parser(text).document();
  if (!doc) return doc.status().with_place(path);
  const Json* format = doc->get("format");
  if (doc->kind != Json::kObject || !format || format->text != "plumb-sequence-coverage/1")
    return invalid_input("not a plumb-sequence-coverage/1 report (plumb coverage --sequences N --json)")
        .with_place(path);
  const Json* uncovered = doc->get("uncovered");
  if (!uncovered || uncovered->kind != Json::kArray)
    return invalid_input("the report has no \"uncovered\" list").with_place(path);
  GenTargets t;
  for (size_t k = 0; k < uncovered->items.size(); ++k) {
    const Json* ops = uncovered->items[k].get("ops");
    if (!ops || ops->kind != Json::kArray || ops->items.empty() || ops->items.size() > 3)
      return invalid_input("uncovered[" + std::to_string(k) + "] has no \"ops\" list of 1 to 3 labels")
          .with_place(path);
    std::vector<std::string> seq;
    for (const Json& op : ops->items) {
      const Json* name = op.get("op");
      const Json* domain = op.get("domain");
      if (!name || name->kind != Json::kString)
        return invalid_input("uncovered[" + std::to_string(k) + "] has a label without \"op\"")
            .with_place(path);
      if (domain && !domain->text.empty()) break;  // gen builds ai.onnx ops only
      seq.push_back(name->text);
    }
    if (seq.size() != ops->items.size()) continue;
    const Json* key = uncovered->items[k].get("key");
    if (!key || key->kind != Json::kString)
      return invalid_input("uncovered[" + std::to_string(k) + "] has no \"key\"").with_place(path);
    t.keys.insert(key->text);
    ++t.grams;
    ++t.start[seq[0]];
    if (seq.size() >= 2) ++t.next[seq[0]][seq[1]];
    if (seq.size() == 3) ++t.third[{seq[0], seq[1]}][seq[2]];
  }
  return t;
}

}  // namespace plumb::hunt
