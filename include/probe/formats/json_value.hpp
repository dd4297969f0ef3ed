// A JSON document in memory: what probe::json::parse returns (formats/json_read.hpp).
// Objects keep their members in file order; numbers keep both their double value and, when
// integral, an exact int64 ("9007199254740993" stays exact). Standalone, plain inline.
#pragma once
#include <stdint.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "json_write.hpp"

PROBE_BEGIN_NAMESPACE
namespace json {

class value {
 public:
  enum class kind : uint8_t { null, boolean, number, string, array, object };

  value() = default;
  static value boolean(bool b) {
    value v(kind::boolean);
    v.b_ = b;
    return v;
  }
  static value number(double d) {
    value v(kind::number);
    v.d_ = d;
    v.is_int_ = exact_int(d, &v.i_);
    return v;
  }
  // Whether d is integral and fits int64_t (not -0), and then *i its value: is_integer().
  static bool exact_int(double d, int64_t* i) noexcept {
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0) || static_cast<double>(static_cast<int64_t>(d)) != d ||
        (d == 0 && detail::fp_signbit(d)))
      return false;
    *i = static_cast<int64_t>(d);
    return true;
  }
  // An integer written without fraction or exponent; it is written back the same way.
  static value integer(int64_t i) {
    value v(kind::number);
    v.d_ = static_cast<double>(i);
    v.i_ = i;
    v.is_int_ = true;
    v.int_text_ = true;
    return v;
  }
  static value string(std::string s) {
    value v(kind::string);
    v.s_ = std::move(s);
    return v;
  }
  static value array() { return value(kind::array); }
  static value object() { return value(kind::object); }

  kind type() const noexcept { return kind_; }
  bool is_null() const noexcept { return kind_ == kind::null; }
  bool is_bool() const noexcept { return kind_ == kind::boolean; }
  bool is_number() const noexcept { return kind_ == kind::number; }
  bool is_string() const noexcept { return kind_ == kind::string; }
  bool is_array() const noexcept { return kind_ == kind::array; }
  bool is_object() const noexcept { return kind_ == kind::object; }
  // A number that is integral and fits int64 (as_int is then exact).
  bool is_integer() const noexcept { return kind_ == kind::number && is_int_; }
  // A number made by integer(): written as an integer ("3"), where number(3.0) writes "3.0".
  bool is_integer_text() const noexcept { return kind_ == kind::number && int_text_; }

  bool as_bool(bool fallback = false) const noexcept { return kind_ == kind::boolean ? b_ : fallback; }
  double as_double(double fallback = 0) const noexcept { return kind_ == kind::number ? d_ : fallback; }
  int64_t as_int(int64_t fallback = 0) const noexcept { return is_integer() ? i_ : fallback; }
  // The string; empty for other kinds.
  const std::string& as_string() const noexcept { return s_; }

  // Elements of an array, members of an object; 0 for other kinds.
  size_t size() const noexcept { return items_.size(); }
  // Element or member value i; a null value when out of range.
  const value& at(size_t i) const noexcept { return i < items_.size() ? items_[i] : null_value(); }
  const value& operator[](size_t i) const noexcept { return at(i); }
  // Name of member i of an object.
  const std::string& key(size_t i) const noexcept { return i < keys_.size() ? keys_[i] : null_value().s_; }
  // The member named k (the last one, if a name repeats, as Python does); nullptr if none.
  const value* find(std::string_view k) const noexcept {
    for (size_t i = keys_.size(); i-- > 0;)
      if (keys_[i] == k) return &items_[i];
    return nullptr;
  }
  // The member named k, or a null value.
  const value& get(std::string_view k) const noexcept {
    const value* v = find(k);
    return v ? *v : null_value();
  }
  // Shorthands for optional members.
  std::string get_string(std::string_view k, const std::string& fallback = std::string()) const {
    const value* v = find(k);
    return v && v->is_string() ? v->s_ : fallback;
  }
  double get_double(std::string_view k, double fallback = 0) const noexcept {
    const value* v = find(k);
    return v ? v->as_double(fallback) : fallback;
  }
  int64_t get_int(std::string_view k, int64_t fallback = 0) const noexcept {
    const value* v = find(k);
    return v ? v->as_int(fallback) : fallback;
  }

  // Building: append to an array, or a member to an object. Returns the new element.
  value& push(value v) {
    items_.push_back(std::move(v));
    return items_.back();
  }
  value& add(std::string k, value v) {
    keys_.push_back(std::move(k));
    items_.push_back(std::move(v));
    return items_.back();
  }

 private:
  explicit value(kind k) : kind_(k) {}
  static const value& null_value() noexcept {
    static const value v;
    return v;
  }

  kind kind_ = kind::null;
  bool b_ = false;
  bool is_int_ = false;
  bool int_text_ = false;
  double d_ = 0;
  int64_t i_ = 0;
  std::string s_;
  std::vector<value> items_;       // array elements, or object member values
  std::vector<std::string> keys_;  // object member names, parallel to items_
};

// Writes v as compact JSON (integers exact, doubles shortest, non-finite per `w`'s setting).
inline void write(writer& w, const value& v) {
  switch (v.type()) {
    case value::kind::null: w.null(); break;
    case value::kind::boolean: w.value(v.as_bool()); break;
    case value::kind::number:
      if (v.is_integer_text())
        w.value(static_cast<long long>(v.as_int()));
      else
        w.value(v.as_double());
      break;
    case value::kind::string: w.value(v.as_string()); break;
    case value::kind::array:
      w.begin_array();
      for (size_t i = 0; i < v.size(); ++i) write(w, v[i]);
      w.end_array();
      break;
    case value::kind::object:
      w.begin_object();
      for (size_t i = 0; i < v.size(); ++i) {
        w.key(v.key(i));
        write(w, v[i]);
      }
      w.end_object();
      break;
  }
}
inline std::string to_string(const value& v) {
  std::string out;
  writer w(out, writer::nonfinite::tokens);
  write(w, v);
  return out;
}

}  // namespace json
PROBE_END_NAMESPACE
