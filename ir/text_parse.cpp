// The text form's parser (spec/text_form.md): tokens (text_syntax.h) to a verified-shape Graph.
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <unordered_map>

#include "ir/infer.h"
#include "ir/narrow_float.h"
#include "ir/text.h"
#include "ir/text_syntax.h"

namespace plumb::ir {

using namespace text;  // the lexical syntax (text_syntax.h)

namespace {

// ---- parser --------------------------------------------------------------------------------

class Parser {
 public:
  explicit Parser(std::vector<Token> toks) : t_(std::move(toks)) {}

  Expected<Graph> run() {
    PLUMB_RETURN_IF_ERROR(expect_ident("plumb"));
    {
      bool neg;
      uint64_t v;
      if (cur().kind != Tok::Number || !parse_integer(cur().text, neg, v) || neg || v > UINT32_MAX)
        return err("expected the core version number after 'plumb'");
      g_.core_version = static_cast<uint32_t>(v);
      next();
    }
    if (is_ident("producer")) {
      next();
      if (cur().kind != Tok::String) return err("expected a string after 'producer'");
      g_.producer = cur().text;
      next();
    }
    PLUMB_RETURN_IF_ERROR(expect_ident("func"));
    if (cur().kind != Tok::Global || cur().text != "main") return err("expected '@main'");
    next();
    scopes_.emplace_back();
    PLUMB_RETURN_IF_ERROR(parse_params("a parameter name", [&](ValueId v) -> Status {
      g_.body.params.push_back(v);
      std::string input_name = g_.values[v].onnx_name;
      if (is_ident("as")) {
        next();
        if (cur().kind != Tok::String) return err("expected a string after 'as'");
        input_name = cur().text;
        next();
      }
      g_.input_names.push_back(std::move(input_name));
      return Status::ok();
    }));
    if (cur().kind != Tok::Arrow) return err("expected '->'");
    next();
    PLUMB_RETURN_IF_ERROR(expect_punct("("));
    std::vector<Type> result_types;
    std::vector<std::pair<bool, std::string>> result_names;
    std::vector<Token> result_toks;
    if (!is_punct(")")) {
      for (;;) {
        result_toks.push_back(cur());
        Type ty;
        PLUMB_RETURN_IF_ERROR(parse_type(ty, 0));
        result_types.push_back(std::move(ty));
        if (is_ident("as")) {
          next();
          if (cur().kind != Tok::String) return err("expected a string after 'as'");
          result_names.emplace_back(true, cur().text);
          next();
        } else {
          result_names.emplace_back(false, std::string());
        }
        if (!is_punct(",")) break;
        next();
      }
    }
    PLUMB_RETURN_IF_ERROR(expect_punct(")"));
    PLUMB_RETURN_IF_ERROR(expect_punct("{"));
    PLUMB_RETURN_IF_ERROR(parse_body(g_.body, "return", 0));
    PLUMB_RETURN_IF_ERROR(expect_punct("}"));
    if (cur().kind != Tok::End) return err("expected the end of the text after the function");
    if (g_.body.results.size() != result_types.size())
      return error_at(return_tok_.line, return_tok_.col,
                      strfmt("return has %zu values, the signature declares %zu", g_.body.results.size(),
                             result_types.size()));
    for (size_t i = 0; i < result_types.size(); ++i) {
      const Type& actual = g_.values[g_.body.results[i]].type;
      if (actual != result_types[i])
        return error_at(result_toks[i].line, result_toks[i].col,
                        strfmt("result %zu is declared %s but the returned value is %s", i,
                               print_type(result_types[i]).c_str(), print_type(actual).c_str()));
      g_.output_names.push_back(result_names[i].first ? result_names[i].second
                                                      : g_.values[g_.body.results[i]].onnx_name);
    }
    return std::move(g_);
  }

 private:
  const Token& cur() const { return t_[i_]; }
  const Token& peek(size_t k) const { return t_[std::min(i_ + k, t_.size() - 1)]; }
  void next() {
    if (i_ + 1 < t_.size()) ++i_;
  }
  bool is_punct(const char* p) const { return cur().kind == Tok::Punct && cur().text == p; }
  bool is_ident(const char* s) const { return cur().kind == Tok::Ident && cur().text == s; }
  Status err(const std::string& msg) const { return error_at(cur().line, cur().col, msg); }
  Status err_at(const Token& t, const std::string& msg) const { return error_at(t.line, t.col, msg); }
  std::string describe() const { return describe_token(cur()); }
  Status expect_punct(const char* p) {
    if (!is_punct(p)) return err(strfmt("expected '%s', found %s", p, describe().c_str()));
    next();
    return Status::ok();
  }
  Status expect_ident(const char* s) {
    if (!is_ident(s)) return err(strfmt("expected '%s', found %s", s, describe().c_str()));
    next();
    return Status::ok();
  }

  std::string display(const Token& t) const {
    if (t.key[0] == '#') return "%" + t.key.substr(1);
    return "%" + ident_or_quote(t.onnx) + t.suffix;
  }

  const ValueId* lookup(const std::string& key) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->find(key);
      if (f != it->end()) return &f->second;
    }
    return nullptr;
  }

  Status check_new(const Token& name) const {
    if (lookup(name.key)) return err_at(name, "value " + display(name) + " is already defined");
    return Status::ok();
  }

  Expected<ValueId> define(const Token& name, Type ty) {
    PLUMB_RETURN_IF_ERROR(check_new(name));
    const ValueId v = g_.add_value(std::move(ty), name.onnx);
    scopes_.back().emplace(name.key, v);
    return v;
  }

  Status parse_value_refs(std::vector<ValueId>& out) {
    for (;;) {
      if (cur().kind != Tok::Value) return err("expected a value");
      const ValueId* v = lookup(cur().key);
      if (!v) return err("value " + display(cur()) + " is not defined here");
      out.push_back(*v);
      next();
      if (!is_punct(",")) return Status::ok();
      next();
    }
  }

  // Nodes up to the terminator (`return` or `yield`) and its values.
  Status parse_body(Region& r, const char* terminator, int depth) {
    for (;;) {
      if (is_ident(terminator)) break;
      if (cur().kind == Tok::End || is_punct("}"))
        return err(strfmt("expected '%s' to end the region", terminator));
      Node n;
      PLUMB_RETURN_IF_ERROR(parse_node(n, depth));
      r.nodes.push_back(std::move(n));
    }
    return_tok_ = cur();
    next();
    if (cur().kind == Tok::Value) PLUMB_RETURN_IF_ERROR(parse_value_refs(r.results));
    return Status::ok();
  }

  Status parse_node(Node& n, int depth) {
    std::vector<Token> result_names;
    if (cur().kind == Tok::Value) {
      for (;;) {
        if (cur().kind != Tok::Value) return err("expected a result name");
        PLUMB_RETURN_IF_ERROR(check_new(cur()));
        for (const Token& t : result_names)
          if (t.key == cur().key) return err("value " + display(cur()) + " is already defined");
        result_names.push_back(cur());
        next();
        if (!is_punct(",")) break;
        next();
      }
      PLUMB_RETURN_IF_ERROR(expect_punct("="));
    }
    // Result values get their ids before the regions' values (the printer's order).
    for (const Token& t : result_names) n.outputs.push_back(g_.add_value(Type(), t.onnx));
    if (cur().kind != Tok::Ident) return err("expected an op mnemonic, found " + describe());
    const Token op_tok = cur();
    auto op = op_from_name(cur().text);
    if (!op) return err("unknown op '" + cur().text + "'");
    n.op = *op;
    next();
    if (cur().kind == Tok::Value) PLUMB_RETURN_IF_ERROR(parse_value_refs(n.inputs));
    if (is_punct("{") && peek(1).kind == Tok::Ident && peek(2).kind == Tok::Punct && peek(2).text == "=")
      PLUMB_RETURN_IF_ERROR(parse_attrs(n));
    if (is_punct("{")) {
      if (depth + 1 > kMaxRegionDepth) return err("regions nested too deeply");
      next();
      while (!is_punct("}")) {
        if (cur().kind != Tok::Ident) return err("expected a region label, found " + describe());
        const std::string expected = expected_label(n.op, n.regions.size());
        if (!expected.empty() && cur().text != expected)
          return err(strfmt("expected region '%s' of %s, found '%s'", expected.c_str(),
                            std::string(op_name(n.op)).c_str(), cur().text.c_str()));
        next();
        Region r;
        scopes_.emplace_back();
        PLUMB_RETURN_IF_ERROR(parse_params("a region parameter name", [&](ValueId v) {
          r.params.push_back(v);
          return Status::ok();
        }));
        PLUMB_RETURN_IF_ERROR(expect_punct("{"));
        PLUMB_RETURN_IF_ERROR(parse_body(r, "yield", depth + 1));
        PLUMB_RETURN_IF_ERROR(expect_punct("}"));
        scopes_.pop_back();
        n.regions.push_back(std::move(r));
      }
      next();
    }
    std::vector<Type> types;
    if (is_punct(":")) {
      next();
      for (;;) {
        Type ty;
        PLUMB_RETURN_IF_ERROR(parse_type(ty, 0));
        types.push_back(std::move(ty));
        if (!is_punct(",")) break;
        next();
      }
    }
    if (types.size() != result_names.size())
      return err_at(op_tok, strfmt("%zu results but %zu result types", result_names.size(), types.size()));
    if (is_ident("loc")) PLUMB_RETURN_IF_ERROR(parse_loc(n.prov));
    for (size_t i = 0; i < result_names.size(); ++i) {
      g_.values[n.outputs[i]].type = std::move(types[i]);
      scopes_.back().emplace(result_names[i].key, n.outputs[i]);
    }
    return Status::ok();
  }

  static std::string expected_label(Op op, size_t i) {
    if (op == Op::If && i < 2) return i == 0 ? "then" : "else";
    if (op == Op::While && i < 2) return i == 0 ? "cond" : "body";
    return {};
  }

  Status parse_loc(Provenance& p) {
    next();
    PLUMB_RETURN_IF_ERROR(expect_punct("("));
    if (cur().kind != Tok::String) return err("expected the ONNX node name (a string)");
    p.node_name = cur().text;
    next();
    PLUMB_RETURN_IF_ERROR(expect_punct(","));
    if (cur().kind != Tok::Ident && cur().kind != Tok::String) return err("expected the ONNX op type");
    p.op_type = cur().text;
    next();
    PLUMB_RETURN_IF_ERROR(expect_punct(","));
    bool neg;
    uint64_t mag;
    if (cur().kind != Tok::Number || !parse_integer(cur().text, neg, mag) || mag > INT64_MAX)
      return err("expected the opset (an integer)");
    p.opset = neg ? -static_cast<int64_t>(mag) : static_cast<int64_t>(mag);
    next();
    if (is_punct(",")) {
      next();
      if (cur().kind != Tok::String) return err("expected the step name (a string)");
      p.step = cur().text;
      next();
    }
    return expect_punct(")");
  }

  Status parse_int(int64_t& out) {
    bool neg;
    uint64_t mag;
    if (cur().kind != Tok::Number || !parse_integer(cur().text, neg, mag) ||
        mag > (neg ? uint64_t{1} << 63 : uint64_t{INT64_MAX}))
      return err("expected an integer (int64), found " + describe());
    out = neg ? static_cast<int64_t>(0 - mag) : static_cast<int64_t>(mag);
    next();
    return Status::ok();
  }

  // `(%name: type, ...)`: each parameter defined in the innermost scope, then passed to `each`
  // (which may read what follows it, as main's `as "onnx name"`). `what` names a parameter in the
  // error for a token that is not one.
  template <typename Each>
  Status parse_params(const char* what, Each each) {
    PLUMB_RETURN_IF_ERROR(expect_punct("("));
    if (!is_punct(")")) {
      for (;;) {
        const Token name = cur();
        if (name.kind != Tok::Value) return err(std::string("expected ") + what);
        next();
        PLUMB_RETURN_IF_ERROR(expect_punct(":"));
        Type ty;
        PLUMB_RETURN_IF_ERROR(parse_type(ty, 0));
        PLUMB_ASSIGN_OR_RETURN(ValueId v, define(name, std::move(ty)));
        PLUMB_RETURN_IF_ERROR(each(v));
        if (!is_punct(",")) break;
        next();
      }
    }
    return expect_punct(")");
  }

  // `[a, b, ...]`, each element read by `element`, into `out`.
  template <typename T>
  Status parse_list(Status (Parser::*element)(T&), AttrValue& out) {
    std::vector<T> v;
    PLUMB_RETURN_IF_ERROR(expect_punct("["));
    while (!is_punct("]")) {
      if (!v.empty()) PLUMB_RETURN_IF_ERROR(expect_punct(","));
      T x;
      PLUMB_RETURN_IF_ERROR((this->*element)(x));
      v.push_back(x);
    }
    next();
    out = std::move(v);
    return Status::ok();
  }

  Status parse_f64(double& out) {
    const std::string& s = cur().text;
    uint64_t bits;
    int digits;
    if ((cur().kind == Tok::Number || cur().kind == Tok::Ident) && parse_decimal(s, out)) {
      next();
      return Status::ok();
    }
    if (cur().kind == Tok::Number && parse_hex_bits(s, bits, digits)) {
      std::memcpy(&out, &bits, 8);
      next();
      return Status::ok();
    }
    return err("expected a number, found " + describe());
  }

  Status parse_attrs(Node& n) {
    next();  // '{'
    for (;;) {
      if (cur().kind != Tok::Ident) return err("expected an attribute name");
      const std::string name = cur().text;
      const AttrSpec* spec = find_attr_spec(n.op, name);
      if (!spec)
        return err(strfmt("%s has no attribute '%s'", std::string(op_name(n.op)).c_str(), name.c_str()));
      if (n.find_attr(name)) return err("attribute '" + name + "' given twice");
      next();
      PLUMB_RETURN_IF_ERROR(expect_punct("="));
      Attr a;
      a.name = name;
      PLUMB_RETURN_IF_ERROR(parse_attr_value(*spec, a.value));
      n.attrs.push_back(std::move(a));
      if (!is_punct(",")) break;
      next();
    }
    return expect_punct("}");
  }

  Status parse_attr_value(const AttrSpec& spec, AttrValue& out) {
    switch (spec.kind) {
      case AttrKind::Int: {
        int64_t v;
        PLUMB_RETURN_IF_ERROR(parse_int(v));
        out = v;
        return Status::ok();
      }
      case AttrKind::Float: {
        double v;
        PLUMB_RETURN_IF_ERROR(parse_f64(v));
        out = v;
        return Status::ok();
      }
      case AttrKind::Bool:
        if (!is_ident("true") && !is_ident("false")) return err("expected true or false");
        out = cur().text == "true";
        next();
        return Status::ok();
      case AttrKind::Ints: return parse_list(&Parser::parse_int, out);
      case AttrKind::Floats: return parse_list(&Parser::parse_f64, out);
      case AttrKind::Str:
        if (cur().kind != Tok::String) return err("expected a string");
        out = cur().text;
        next();
        return Status::ok();
      case AttrKind::DType: {
        auto dt = cur().kind == Tok::Ident ? dtype_from_name(cur().text) : std::nullopt;
        if (!dt) return err("expected a dtype, found " + describe());
        out = *dt;
        next();
        return Status::ok();
      }
      case AttrKind::Enum: {
        auto code =
            cur().kind == Tok::Ident ? enum_value_from_name(spec.enum_type, cur().text) : std::nullopt;
        if (!code)
          return err(strfmt("expected a %s value, found %s", std::string(spec.enum_type).c_str(),
                            describe().c_str()));
        out = EnumValue{*code};
        next();
        return Status::ok();
      }
      case AttrKind::Const: {
        ConstantData c;
        PLUMB_RETURN_IF_ERROR(parse_dense(c));
        if (g_.constants.size() >= UINT32_MAX) return err("too many constants");
        g_.constants.push_back(std::move(c));
        out = ConstRef{static_cast<uint32_t>(g_.constants.size() - 1)};
        return Status::ok();
      }
      case AttrKind::Type: {
        Type t;
        PLUMB_RETURN_IF_ERROR(parse_type(t, 0));
        out = TypeAttr{std::move(t)};
        return Status::ok();
      }
    }
    return err("unknown attribute kind");
  }

  Status parse_type(Type& out, int depth) {
    if (depth > kMaxTypeDepth) return err("type nested too deeply");
    if (cur().kind != Tok::Ident) return err("expected a type, found " + describe());
    const std::string word = cur().text;
    if (word == "seq" || word == "opt" || word == "map") {
      next();
      PLUMB_RETURN_IF_ERROR(expect_punct("<"));
      DType key = DType::F32;
      if (word == "map") {
        auto dt = cur().kind == Tok::Ident ? dtype_from_name(cur().text) : std::nullopt;
        if (!dt) return err("expected the map key dtype");
        key = *dt;
        next();
        PLUMB_RETURN_IF_ERROR(expect_punct(","));
      }
      Type elem;
      PLUMB_RETURN_IF_ERROR(parse_type(elem, depth + 1));
      PLUMB_RETURN_IF_ERROR(expect_punct(">"));
      out = word == "seq"   ? Type::sequence(std::move(elem))
            : word == "opt" ? Type::optional(std::move(elem))
                            : Type::map(key, std::move(elem));
      return Status::ok();
    }
    auto dt = dtype_from_name(word);
    if (!dt) return err("unknown dtype '" + word + "'");
    next();
    PLUMB_RETURN_IF_ERROR(expect_punct("["));
    if (is_punct("*")) {
      next();
      PLUMB_RETURN_IF_ERROR(expect_punct("]"));
      out = Type::unranked_tensor(*dt);
      return Status::ok();
    }
    Shape shape;
    while (!is_punct("]")) {
      if (!shape.empty()) PLUMB_RETURN_IF_ERROR(expect_punct(","));
      if (static_cast<int64_t>(shape.size()) >= kMaxRank)
        return err(strfmt("rank above %lld", (long long)kMaxRank));
      if (is_punct("?")) {
        shape.push_back(Dim::symbolic());
        next();
      } else if (cur().kind == Tok::Ident || cur().kind == Tok::String) {
        if (cur().text.empty()) return err("a symbolic dim name may not be empty");
        shape.push_back(Dim::symbolic(cur().text));
        next();
      } else {
        int64_t d;
        PLUMB_RETURN_IF_ERROR(parse_int(d));
        if (d < 0) return err_at(t_[i_ - 1], "a dim must be >= 0, '?' or a name");
        shape.emplace_back(d);
      }
    }
    next();
    out = Type::tensor(*dt, std::move(shape));
    return Status::ok();
  }

  Status parse_dense(ConstantData& out) {
    PLUMB_RETURN_IF_ERROR(expect_ident("dense"));
    PLUMB_RETURN_IF_ERROR(expect_punct("<"));
    const Token type_tok = cur();
    Type ty;
    PLUMB_RETURN_IF_ERROR(parse_type(ty, 0));
    PLUMB_RETURN_IF_ERROR(expect_punct(">"));
    if (!ty.is_tensor() || !ty.ranked || !shape_is_static(ty.shape))
      return err_at(type_tok, "a dense constant needs a static tensor type, not " + print_type(ty));
    const int64_t n = shape_num_elements(ty.shape);
    if (n < 0 || n > kMaxElements)
      return err_at(type_tok, "constant " + print_type(ty) + " has too many elements");
    PLUMB_RETURN_IF_ERROR(expect_punct("["));
    if (is_punct("...")) return err("an elided constant cannot be parsed (print it in full)");
    const DType dt = ty.dtype;
    std::vector<uint64_t> elems;
    std::vector<std::string> strs;
    int64_t count = 0;
    while (!is_punct("]")) {
      if (count) PLUMB_RETURN_IF_ERROR(expect_punct(","));
      if (count >= n)
        return err(strfmt("more than %lld elements for %s", (long long)n, print_type(ty).c_str()));
      if (dt == DType::String) {
        if (cur().kind != Tok::String) return err("expected a string element");
        strs.push_back(cur().text);
        next();
      } else {
        uint64_t b;
        PLUMB_RETURN_IF_ERROR(parse_elem(dt, b));
        elems.push_back(b);
      }
      ++count;
    }
    if (count != n)
      return err(strfmt("%lld elements for %s, which holds %lld", (long long)count, print_type(ty).c_str(),
                        (long long)n));
    next();
    std::vector<uint8_t> bytes;
    if (dt == DType::String) {
      for (const std::string& s : strs) {
        if (s.size() > UINT32_MAX) return err("string element too long");
        const uint32_t len = static_cast<uint32_t>(s.size());
        for (int k = 0; k < 4; ++k) bytes.push_back(static_cast<uint8_t>(len >> (8 * k)));
        bytes.insert(bytes.end(), s.begin(), s.end());
      }
    } else {
      const int bits = dtype_bits(dt);
      bytes.assign(dtype_storage_bytes(dt, static_cast<uint64_t>(n)), 0);
      for (size_t i = 0; i < elems.size(); ++i) {
        if (bits >= 8) {
          for (int k = 0; k < bits / 8; ++k)
            bytes[i * (bits / 8) + k] = static_cast<uint8_t>(elems[i] >> (8 * k));
        } else {
          const size_t per = 8 / bits;
          bytes[i / per] |= static_cast<uint8_t>((elems[i] & ((1u << bits) - 1)) << ((i % per) * bits));
        }
      }
    }
    out = ConstantData::owned(std::move(ty), std::move(bytes));
    return Status::ok();
  }

  // One element of a non-string dtype as its bit pattern (text_syntax.h).
  Status parse_elem(DType dt, uint64_t& bits) {
    PLUMB_RETURN_IF_ERROR(element_bits(dt, cur(), bits));
    next();
    return Status::ok();
  }

  std::vector<Token> t_;
  size_t i_ = 0;
  Graph g_;
  std::vector<std::unordered_map<std::string, ValueId>> scopes_;
  Token return_tok_;
};

}  // namespace

Expected<Graph> parse_graph(std::string_view text) {
  std::vector<Token> toks;
  PLUMB_RETURN_IF_ERROR(lex(text, toks));
  return Parser(std::move(toks)).run();
}

}  // namespace plumb::ir
