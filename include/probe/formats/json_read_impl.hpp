// Reading JSON (json_read.hpp): the parser.
#pragma once
#include "json_parser.hpp"

PROBE_BEGIN_NAMESPACE
namespace json {

PROBE_API bool parse(const char* text, size_t n, value& out, std::string* error, const parse_options& options) {
  read_impl::parser p(text, n, options);
  value v;
  if (!p.document(v)) {
    out = value();
    if (error) *error = p.error();
    return false;
  }
  out = std::move(v);
  return true;
}

}  // namespace json
PROBE_END_NAMESPACE
