// breakpoint_expr: definitions (see breakpoint_expr.hpp).
#pragma once
#include "breakpoint_expr.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

PROBE_API bool eval_expr(const frame& f, const std::string& text, expr_value* out, std::string* err) {
  using namespace bp_expr;
  const std::string e = trim(text);
  if (e.empty()) {
    *err = "expected an expression: a name, name[i, j], name[a:b], name.shape or name.dtype";
    return false;
  }
  size_t pos = e.find('[');
  std::string name = trim(e.substr(0, pos));
  std::string attr;
  const frame_var* var = f.find(name);
  if (!var && pos == std::string::npos) {
    for (const char* a : {".shape", ".dtype"})
      if (ends_with(name, a) && f.find(name.substr(0, name.size() - strlen(a)))) {
        attr = a + 1;
        name.resize(name.size() - strlen(a));
        var = f.find(name);
      }
  }
  if (!var) {
    *err = "name '" + name + "' is not defined in this frame (info lists the variables)";
    return false;
  }
  tensor_view v = var->view;
  if (!view_problem_text(v).empty()) {
    *err = "'" + name + "': " + view_problem_text(v);
    return false;
  }
  while (attr.empty() && pos != std::string::npos && pos < e.size()) {
    while (pos < e.size() && is_space(e[pos])) ++pos;
    if (pos >= e.size()) break;
    if (e[pos] == '[') {
      const size_t close = e.find(']', pos);
      if (close == std::string::npos) {
        *err = "missing ']' in '" + e + "'";
        return false;
      }
      if (!apply_bracket(v, e.substr(pos + 1, close - pos - 1), err)) return false;
      pos = close + 1;
    } else if (e.compare(pos, 6, ".shape") == 0 && trim(e.substr(pos + 6)).empty()) {
      attr = "shape";
    } else if (e.compare(pos, 6, ".dtype") == 0 && trim(e.substr(pos + 6)).empty()) {
      attr = "dtype";
    } else {
      *err = "unexpected '" + e.substr(pos) + "' (expressions: name, name[i, j], name[a:b], .shape, .dtype)";
      return false;
    }
  }
  out->is_text = !attr.empty();
  out->view = v;
  out->var = var;
  if (attr == "shape") out->text = shape_tuple(v);
  if (attr == "dtype") out->text = dtype_name(v.type);
  return true;
}

}  // namespace detail
PROBE_END_NAMESPACE
