// A small JSON writer for the analysis reports: objects, arrays, escaped strings (invalid
// UTF-8 becomes U+FFFD, so the output always parses), numbers that read back exactly
// (non-finite ones as null). Kept to what the reports need. Standalone header: plain `inline`.
#pragma once
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <probe/util/config.hpp>
#include "utf8.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

inline void json_escape_to(std::string* out, const std::string& s) {
  *out += '"';
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '"': *out += "\\\""; break;
        case '\\': *out += "\\\\"; break;
        case '\n': *out += "\\n"; break;
        case '\r': *out += "\\r"; break;
        case '\t': *out += "\\t"; break;
        default:
          if (c < 0x20 || c == 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            *out += buf;
          } else {
            *out += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    // a well-formed UTF-8 sequence is copied; anything else becomes U+FFFD
    const size_t len = utf8_sequence_length(s, i);
    if (len) {
      out->append(s, i, len);
      i += len;
    } else {
      *out += "\\ufffd";
      ++i;
    }
  }
  *out += '"';
}

// Shortest of %.15g / %.17g that reads back as the same double.
inline std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  if (std::strtod(buf, nullptr) != v) std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// Streaming writer: commas and nesting handled; the caller calls key() before each member.
class json_text {
 public:
  json_text& begin_object() { return open('{'); }
  json_text& end_object() { return close('}'); }
  json_text& begin_array() { return open('['); }
  json_text& end_array() { return close(']'); }
  json_text& key(const std::string& k) {
    separate();
    json_escape_to(&out_, k);
    out_ += ':';
    after_key_ = true;
    return *this;
  }
  json_text& value(const std::string& s) {
    separate();
    json_escape_to(&out_, s);
    return *this;
  }
  json_text& value(const char* s) { return value(std::string(s)); }
  json_text& value(double v) {
    separate();
    out_ += json_number(v);
    return *this;
  }
  json_text& value(size_t v) {
    separate();
    out_ += std::to_string(v);
    return *this;
  }
  json_text& value(int v) {
    separate();
    out_ += std::to_string(v);
    return *this;
  }
  json_text& value(bool v) {
    separate();
    out_ += v ? "true" : "false";
    return *this;
  }
  json_text& null() {
    separate();
    out_ += "null";
    return *this;
  }
  template <class T>
  json_text& member(const std::string& k, const T& v) {
    key(k);
    return value(v);
  }
  const std::string& str() const { return out_; }

 private:
  void separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!first_.empty()) {
      if (!first_.back()) out_ += ',';
      first_.back() = false;
    }
  }
  json_text& open(char c) {
    separate();
    out_ += c;
    first_.push_back(true);
    return *this;
  }
  json_text& close(char c) {
    out_ += c;
    if (!first_.empty()) first_.pop_back();
    return *this;
  }

  std::string out_;
  std::vector<bool> first_;
  bool after_key_ = false;
};

}  // namespace analysis
PROBE_END_NAMESPACE
