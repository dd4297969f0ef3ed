// Reading JSON: a whole document, or one line of a JSONL file (manifests, snapshots, results).
//
//   probe::json::value doc;
//   std::string err;
//   if (!probe::json::parse(line, doc, &err)) report(err);  // "line 1, column 14: expected ..."
//   doc.get_string("op"); doc.get_int("seq"); doc.get("stats").get_double("mean");
//
// Strict JSON (RFC 8259) with two leniencies: the tokens NaN, Infinity and -Infinity that
// Python's json module writes, and a leading UTF-8 byte order mark. Strings decode \u escapes
// (surrogate pairs to one code point; a lone surrogate becomes U+FFFD). Nesting deeper than
// parse_options::max_depth is an error, so hostile input cannot exhaust the stack.
#pragma once
#include <stdint.h>
#include <string.h>

#include <string>
#include <string_view>

#include "json_value.hpp"

PROBE_BEGIN_NAMESPACE
namespace json {

struct parse_options {
  int max_depth = 256;
};

// Parses one JSON document (or one JSONL line) into `out`. On failure returns false, leaves
// `out` null and sets *error to "line L, column C: what went wrong".
PROBE_API bool parse(const char* text, size_t n, value& out, std::string* error = nullptr,
                     const parse_options& options = parse_options());
inline bool parse(std::string_view text, value& out, std::string* error = nullptr,
                  const parse_options& options = parse_options()) {
  return parse(text.data(), text.size(), out, error, options);
}

}  // namespace json
PROBE_END_NAMESPACE
