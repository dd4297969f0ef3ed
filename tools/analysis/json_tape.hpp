// One JSON document (a manifest line) read into a flat array of nodes: no allocation per
// value, strings viewed in place or decoded into one buffer. The manifest reader uses it for
// tensor records, the bulk of a dump (dump_manifest.hpp); everything else reads json::value.
//
//   analysis::json_tape tape;
//   if (tape.parse(line, len)) {            // false: json::parse refuses it too, and says why
//     json_tape::ref r = tape.root();
//     r.get_string("op"); r.get_int("seq"); r.get("shape").size();
//   }
//
// It accepts exactly what json::parse accepts and gives the same values (the lexing is
// json::parse's own, json_parser.hpp; the JSON fuzzer checks the two agree): the last member
// wins when a name repeats, integers stay exact, NaN/Infinity tokens, a leading BOM.
// The text must outlive the tape's views; parsing again reuses the tape's memory.
#pragma once
#include <stdint.h>

#include <string>
#include <string_view>
#include <vector>

#include <probe/formats/json_parser.hpp>

PROBE_BEGIN_NAMESPACE
namespace analysis {

class json_tape {
 public:
  using kind = json::value::kind;

  struct node {
    kind type = kind::null;
    bool b = false;       // a boolean's value; a number's: written as an integer ("3", not "3.0")
    bool is_int = false;  // a number that is integral and fits int64_t
    uint32_t end = 0;       // one past the last node of this value's subtree
    std::string_view name;  // an object member: its name
    std::string_view str;
    double d = 0;
    int64_t i = 0;
  };

  // A value of the tape, or none (a member not found): none reads as null.
  class ref {
   public:
    ref() = default;
    ref(const json_tape* t, uint32_t i) : t_(t), i_(i) {}

    kind type() const noexcept { return n() ? n()->type : kind::null; }
    bool is_null() const noexcept { return type() == kind::null; }
    bool is_bool() const noexcept { return type() == kind::boolean; }
    bool is_number() const noexcept { return type() == kind::number; }
    bool is_string() const noexcept { return type() == kind::string; }
    bool is_array() const noexcept { return type() == kind::array; }
    bool is_object() const noexcept { return type() == kind::object; }
    bool is_integer() const noexcept { return is_number() && n()->is_int; }

    bool as_bool(bool fallback = false) const noexcept { return is_bool() ? n()->b : fallback; }
    double as_double(double fallback = 0) const noexcept { return is_number() ? n()->d : fallback; }
    int64_t as_int(int64_t fallback = 0) const noexcept { return is_integer() ? n()->i : fallback; }
    std::string_view as_string() const noexcept { return is_string() ? n()->str : std::string_view(); }
    // This value's name, when it is an object's member.
    std::string_view name() const noexcept { return n() ? n()->name : std::string_view(); }

    // Children of an array or object, in order: first_child(), then next_sibling() until none.
    ref first_child() const noexcept {
      return (is_array() || is_object()) && i_ + 1 < n()->end ? ref(t_, i_ + 1) : ref();
    }
    ref next_sibling(const ref& parent) const noexcept {
      return n() && n()->end < parent.n()->end ? ref(t_, n()->end) : ref();
    }
    explicit operator bool() const noexcept { return n() != nullptr; }

    size_t size() const noexcept {
      size_t k = 0;
      for (ref c = first_child(); c; c = c.next_sibling(*this)) ++k;
      return k;
    }
    ref at(size_t k) const noexcept {
      ref c = first_child();
      for (; c && k; --k) c = c.next_sibling(*this);
      return c;
    }
    ref operator[](size_t k) const noexcept { return at(k); }
    // The member named k (the last one when a name repeats, as json::value); none if absent.
    ref get(std::string_view k) const noexcept {
      ref found;
      if (!is_object()) return found;
      for (ref c = first_child(); c; c = c.next_sibling(*this))
        if (c.name() == k) found = c;
      return found;
    }
    // Several members in one pass: out[k] is the member named names[k] (the last, when a name
    // repeats), none when absent. Cheaper than a get() per name on records of many members.
    template <size_t N>
    void pick(const std::string_view (&names)[N], ref (&out)[N]) const noexcept {
      for (ref& r : out) r = ref();
      if (!is_object()) return;
      size_t next = 0;  // records list their members in a usual order: try the name after the last found first
      for (ref c = first_child(); c; c = c.next_sibling(*this)) {
        const std::string_view m = c.name();
        if (m.empty()) continue;
        auto same = [&](size_t k) { return names[k].size() == m.size() && names[k][0] == m[0] && names[k] == m; };
        size_t k = next < N && same(next) ? next : N;
        for (size_t j = 0; j < N && k == N; ++j)
          if (same(j)) k = j;
        if (k < N) {
          out[k] = c;
          next = k + 1;
        }
      }
    }
    std::string_view get_string(std::string_view k) const noexcept { return get(k).as_string(); }
    int64_t get_int(std::string_view k, int64_t fallback = 0) const noexcept { return get(k).as_int(fallback); }

    // The same value as a json::value (for what keeps one, like an op's attributes).
    json::value to_value() const {
      switch (type()) {
        case kind::null: return json::value();
        case kind::boolean: return json::value::boolean(n()->b);
        case kind::number:
          return n()->b ? json::value::integer(n()->i) : json::value::number(n()->d);
        case kind::string: return json::value::string(std::string(n()->str));
        case kind::array: {
          json::value a = json::value::array();
          for (ref c = first_child(); c; c = c.next_sibling(*this)) a.push(c.to_value());
          return a;
        }
        case kind::object: {
          json::value o = json::value::object();
          for (ref c = first_child(); c; c = c.next_sibling(*this)) o.add(std::string(c.name()), c.to_value());
          return o;
        }
      }
      return json::value();
    }

   private:
    const node* n() const noexcept { return t_ && i_ < t_->nodes_.size() ? &t_->nodes_[i_] : nullptr; }
    const json_tape* t_ = nullptr;
    uint32_t i_ = 0;
  };

  // Reads text[0, n); false when it is not one JSON value (json::parse then says why).
  bool parse(const char* text, size_t n, const json::parse_options& options = json::parse_options()) {
    nodes_.clear();
    buf_.clear();
    if (buf_.capacity() < n) buf_.reserve(n);  // decoded strings never outgrow their text: views stay put
    if (n >= UINT32_MAX) return false;
    reader r(text, n, options, this);
    return r.document();
  }
  ref root() const noexcept { return nodes_.empty() ? ref() : ref(this, 0); }

 private:
  class reader : public json::read_impl::parser {
   public:
    reader(const char* s, size_t n, const json::parse_options& o, json_tape* t) : parser(s, n, o), t_(t) {}

    bool document() {
      if (n_ >= 3 && memcmp(s_, "\xEF\xBB\xBF", 3) == 0) i_ = 3;
      skip_ws();
      if (i_ >= n_ || !value(std::string_view(), 0)) return false;
      skip_ws();
      return i_ >= n_;
    }

   private:
    uint32_t push(kind k, std::string_view name) {
      t_->nodes_.emplace_back();
      node& x = t_->nodes_.back();
      x.type = k;
      x.name = name;
      x.end = static_cast<uint32_t>(t_->nodes_.size());
      return static_cast<uint32_t>(t_->nodes_.size() - 1);
    }
    bool string(std::string_view* out) {
      // Most strings hold no escape: viewed where they lie.
      size_t end = i_ + 1;
      while (end < n_ && s_[end] != '"' && s_[end] != '\\' && static_cast<unsigned char>(s_[end]) >= 0x20) ++end;
      if (end < n_ && s_[end] == '"') {
        *out = std::string_view(s_ + i_ + 1, end - i_ - 1);
        i_ = end + 1;
        return true;
      }
      std::string& buf = t_->buf_;
      const size_t at = buf.size();
      if (!parse_string(buf)) return false;
      *out = std::string_view(buf.data() + at, buf.size() - at);
      return true;
    }

    bool value(std::string_view name, int depth) {
      if (i_ >= n_) return false;
      switch (s_[i_]) {
        case '{': return container(kind::object, name, depth + 1);
        case '[': return container(kind::array, name, depth + 1);
        case '"': {
          std::string_view s;
          if (!string(&s)) return false;
          t_->nodes_[push(kind::string, name)].str = s;
          return true;
        }
        case 't':
        case 'f': {
          const bool b = s_[i_] == 't';
          if (!literal(b ? "true" : "false")) return false;
          t_->nodes_[push(kind::boolean, name)].b = b;
          return true;
        }
        case 'n':
          if (!literal("null")) return false;
          push(kind::null, name);
          return true;
        default: {
          if (s_[i_] == 'N' || s_[i_] == 'I') {  // the NaN and Infinity tokens
            json::value v;
            if (!parser::parse_value(v, depth)) return false;
            t_->nodes_[push(kind::number, name)].d = v.as_double();
            return true;
          }
          if (s_[i_] != '-' && (s_[i_] < '0' || s_[i_] > '9')) return false;
          double d = 0;
          int64_t i = 0;
          bool int_text = false;
          if (!scan_number(&d, &i, &int_text)) return false;
          node& x = t_->nodes_[push(kind::number, name)];
          x.d = d;
          x.b = int_text;
          x.is_int = int_text || json::value::exact_int(d, &i);
          x.i = x.is_int ? i : 0;
          return true;
        }
      }
    }

    bool container(kind k, std::string_view name, int depth) {
      if (depth > o_.max_depth) return false;
      const uint32_t self = push(k, name);
      const char close = k == kind::object ? '}' : ']';
      ++i_;
      skip_ws();
      if (i_ < n_ && s_[i_] == close) {
        ++i_;
        return true;
      }
      for (;;) {
        skip_ws();
        std::string_view member;
        if (k == kind::object) {
          if (i_ >= n_ || s_[i_] != '"' || !string(&member)) return false;
          skip_ws();
          if (i_ >= n_ || s_[i_] != ':') return false;
          ++i_;
          skip_ws();
        }
        if (!value(member, depth)) return false;
        skip_ws();
        if (i_ < n_ && s_[i_] == ',') {
          ++i_;
          continue;
        }
        if (i_ < n_ && s_[i_] == close) {
          ++i_;
          t_->nodes_[self].end = static_cast<uint32_t>(t_->nodes_.size());
          return true;
        }
        return false;
      }
    }

    json_tape* t_;
  };

  std::vector<node> nodes_;
  std::string buf_;
};

}  // namespace analysis
PROBE_END_NAMESPACE
