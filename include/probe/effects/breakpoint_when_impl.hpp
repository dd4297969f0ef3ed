// breakpoint_when: definitions (see breakpoint_when.hpp).
#pragma once
#include <string.h>

#include "breakpoint_expr.hpp"
#include "breakpoint_when.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {
namespace bp_when {

inline bool at(const std::string& t, size_t i, const char* word) noexcept {
  return t.compare(i, strlen(word), word) == 0;
}
inline size_t skip_spaces(const std::string& t, size_t i) noexcept {
  while (i < t.size() && bp_expr::is_space(t[i])) ++i;
  return i;
}
// Where the operand that starts at i ends: the next "&&" or "||", or the end.
inline size_t operand_end(const std::string& t, size_t i) noexcept {
  while (i < t.size() && !at(t, i, "&&") && !at(t, i, "||")) ++i;
  return i;
}

}  // namespace bp_when

PROBE_API bool parse_when(const std::string& text, when_condition* out, std::string* err) {
  using namespace bp_when;
  out->any.clear();
  out->never = false;
  out->text = text;
  const std::string& t = text;
  size_t i = skip_spaces(t, 0);
  if (i == t.size()) return true;
  out->any.emplace_back();
  for (;;) {
    i = skip_spaces(t, i);
    const size_t name_at = i;
    while (i < t.size() && ((t[i] >= 'a' && t[i] <= 'z') || t[i] == '_')) ++i;
    const std::string name = t.substr(name_at, i - name_at);
    when_term term;
    if (name == "op") term.subject = when_subject::op;
    else if (name == "type") term.subject = when_subject::type;
    else if (name == "step") term.subject = when_subject::step;
    else if (name == "hit") term.subject = when_subject::hit;
    else {
      *err = (name.empty() ? std::string("expected a name") : "unknown name '" + name + "'") + " at " +
             std::to_string(name_at + 1) + " (op=RE, type=RE, step CMP N, hit CMP N)";
      return false;
    }
    i = skip_spaces(t, i);
    const size_t op_at = i;
    struct {
      const char* text;
      when_compare c;
    } const ops[] = {{"==", when_compare::eq}, {"!=", when_compare::ne}, {"<=", when_compare::le},
                     {">=", when_compare::ge}, {"=", when_compare::eq},  {"<", when_compare::lt},
                     {">", when_compare::gt}};
    bool found = false;
    for (const auto& o : ops)
      if (at(t, i, o.text)) {
        term.compare = o.c;
        i += strlen(o.text);
        found = true;
        break;
      }
    const bool textual = term.subject == when_subject::op || term.subject == when_subject::type;
    if (!found || (textual && term.compare != when_compare::eq && term.compare != when_compare::ne)) {
      *err = "expected " + std::string(textual ? "'=' or '!='" : "'==', '!=', '<', '<=', '>' or '>='") + " after '" +
             name + "' at " + std::to_string(op_at + 1);
      return false;
    }
    const size_t value_at = skip_spaces(t, i);
    const size_t end = operand_end(t, value_at);
    const std::string value = bp_expr::trim(t.substr(value_at, end - value_at));
    if (textual) {
      std::string why;
      if (value.empty() || !term.re.compile(value, &why)) {
        *err = value.empty() ? "expected a regular expression after '" + name + "' at " + std::to_string(value_at + 1)
                             : why;
        return false;
      }
    } else {
      bool present = false;
      if (!bp_expr::parse_int(value, &term.value, &present) || !present) {
        *err = "expected a number after '" + t.substr(name_at, value_at - name_at) + "' at " +
               std::to_string(value_at + 1) + (value.empty() ? std::string() : ", not '" + value + "'");
        return false;
      }
    }
    out->any.back().push_back(static_cast<when_term&&>(term));
    i = end;
    if (i == t.size()) return true;
    if (at(t, i, "||")) out->any.emplace_back();
    i += 2;
  }
}

PROBE_API bool when_holds(const when_condition& c, const when_facts& f) {
  if (c.never) return false;
  if (c.any.empty()) return true;
  for (const std::vector<when_term>& group : c.any) {
    bool all = true;
    for (const when_term& term : group) {
      bool ok;
      if (term.subject == when_subject::op || term.subject == when_subject::type) {
        const char* s = term.subject == when_subject::op ? f.op : f.type;
        ok = s && term.re.search(s, strlen(s));  // no op: neither '=' nor '!=' holds
        if (s && term.compare == when_compare::ne) ok = !ok;
      } else {
        const int64_t v = term.subject == when_subject::step ? f.step : static_cast<int64_t>(f.hit);
        switch (term.compare) {
          case when_compare::eq: ok = v == term.value; break;
          case when_compare::ne: ok = v != term.value; break;
          case when_compare::lt: ok = v < term.value; break;
          case when_compare::le: ok = v <= term.value; break;
          case when_compare::gt: ok = v > term.value; break;
          default: ok = v >= term.value; break;
        }
      }
      if (!ok) {
        all = false;
        break;
      }
    }
    if (all) return true;
  }
  return false;
}

PROBE_API bool parse_command_blocks(const std::string& text, std::vector<command_block>* out, std::string* err) {
  out->clear();
  out->emplace_back();  // the lines before any header
  size_t pos = 0;
  int number = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    const std::string line = bp_expr::trim(text.substr(pos, nl - pos));
    pos = nl + 1;
    ++number;
    if (line.empty() || line[0] == '#') continue;
    if (line[0] != '@') {
      out->back().lines.push_back(line);
      continue;
    }
    command_block b;
    b.header = true;
    std::vector<std::string> words;
    for (size_t i = 1; i < line.size();) {
      while (i < line.size() && bp_expr::is_space(line[i])) ++i;
      const size_t w = i;
      while (i < line.size() && !bp_expr::is_space(line[i])) ++i;
      if (i > w && line[w] == '#') break;  // "@ model.cpp:42   # why": a comment to the end
      if (i > w) words.push_back(line.substr(w, i - w));
    }
    if (words.empty()) {
      *err = "line " + std::to_string(number) + ": '@' needs FILE:LINE, a name or 'hit N'";
      return false;
    }
    for (size_t k = 0; k < words.size(); ++k) {
      const std::string& w = words[k];
      int64_t n = 0;
      bool present = false;
      const size_t colon = w.rfind(':');
      if (w == "hit") {
        if (b.hit) {
          *err = "line " + std::to_string(number) + ": 'hit' given twice";
          return false;
        }
        if (k + 1 == words.size() || !bp_expr::parse_int(words[k + 1], &n, &present) || n < 1) {
          *err = "line " + std::to_string(number) + ": 'hit' needs a count from 1";
          return false;
        }
        b.hit = static_cast<uint64_t>(n);
        ++k;
      } else if (colon != std::string::npos && colon > 0 && bp_expr::parse_int(w.substr(colon + 1), &n, &present) &&
                 present) {
        if (n < 1 || n > 0x7fffffff) {
          *err = "line " + std::to_string(number) + ": bad line number in '" + w + "'";
          return false;
        }
        if (!b.file.empty()) {  // a stop is at one place: two could never both match
          *err = "line " + std::to_string(number) + ": two places ('" + b.file + ":" + std::to_string(b.line) +
                 "' and '" + w + "'); a header names one";
          return false;
        }
        b.file = w.substr(0, colon);
        b.line = static_cast<int>(n);
      } else {
        b.names.push_back(w);
      }
    }
    out->push_back(static_cast<command_block&&>(b));
  }
  return true;
}

PROBE_API bool block_matches(const command_block& b, const stop_info& s) {
  if (!b.header) return true;
  if (b.hit && b.hit != s.hit) return false;
  const frame* top = s.frames.empty() ? nullptr : &s.frames[0];
  if (!b.file.empty()) {
    if (!top || top->line != b.line || top->file.size() < b.file.size()) return false;
    const size_t cut = top->file.size() - b.file.size();
    if (top->file.compare(cut, std::string::npos, b.file) != 0 || (cut > 0 && top->file[cut - 1] != '/'))
      return false;
  }
  for (const std::string& name : b.names) {
    bool named = top && top->kind != frame_kind::op && top->file.size() && top->name == name;
    for (const frame& f : s.frames)
      if (f.kind == frame_kind::op && f.name == name) named = true;
    if (!named) return false;
  }
  return true;
}

PROBE_API std::string commands_for_stop(const std::vector<command_block>& blocks, const stop_info& s) {
  std::string text;
  for (const command_block& b : blocks)
    if (block_matches(b, s))
      for (const std::string& l : b.lines) text += l + "\n";
  return text;
}

}  // namespace detail
PROBE_END_NAMESPACE
