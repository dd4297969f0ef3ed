// The help text and the docs' markdown tables, rendered from a verb's option table.
#include <stdio.h>

#include <algorithm>
#include <string>
#include <vector>

#include "options.hpp"

namespace probe_cli {
namespace {

constexpr size_t k_line_width = 100;
constexpr size_t k_max_name_column = 24;

std::string name_and_metavar(const option_spec& o) {
  return o.kind == value_kind::flag ? std::string(o.name) : std::string(o.name) + " " + o.metavar;
}

std::string range_text(const option_spec& o) {
  if (o.kind != value_kind::integer && o.kind != value_kind::number) return "";
  if (!o.ranged()) return "";
  if (o.hi >= 1e300) return number_text(o.lo) + " or more";  // a bound that only keeps it finite
  return number_text(o.lo) + " to " + number_text(o.hi);
}

// "default 3", "default: one per core" (a colon before words, none before a value).
std::string default_phrase(const option_spec& o) {
  const std::string d = o.default_text;
  return d.find(' ') == std::string::npos ? "default " + d : "default: " + d;
}

// The help line's parenthesis: choices, range, repeatable, default.
std::string details(const option_spec& o) {
  std::vector<std::string> parts;
  if (*o.choices) parts.push_back(choices_in_words(o.choices));
  const std::string range = range_text(o);
  if (!range.empty()) parts.push_back(range);
  if (o.repeatable) parts.push_back("repeatable");
  if (*o.default_text) parts.push_back(default_phrase(o));
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? " (" : "; ") + p;
  return out.empty() ? out : out + ")";
}

// `text` in lines of at most k_line_width, each continuation indented by `indent`; the first
// line starts at column `indent` too (the caller has filled it).
std::string wrapped(const std::string& text, size_t indent) {
  std::string out, line;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    if (!line.empty() && indent + line.size() + 1 + word.size() > k_line_width) {
      out += line + "\n" + std::string(indent, ' ');
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    start = end + 1;
  }
  return out + line + "\n";
}

// Plain text in a markdown table cell: nothing read as markup, no cell ended early.
std::string markdown_text(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '|': out += "\\|"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '*':
      case '`':
      case '\\':
        out += '\\';
        out += c;
        break;
      default: out += c;
    }
  }
  return out;
}

std::string markdown_code(const std::string& s) {
  std::string out = "`";
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out + "`";
}

std::string value_column(const option_spec& o) {
  std::string v;
  switch (o.kind) {
    case value_kind::flag: return "";
    case value_kind::text: v = "text"; break;
    case value_kind::integer: v = "whole number"; break;
    case value_kind::number: v = "number"; break;
  }
  if (*o.choices) v = choices_in_words(o.choices);
  const std::string range = range_text(o);
  if (!range.empty()) v += ", " + range;
  if (o.repeatable) v += ", repeatable";
  return markdown_text(v);
}

}  // namespace

std::string help_text(const command_spec& spec) {
  std::string out;
  const std::string usage = spec.usage;
  for (size_t start = 0, n = 0; start < usage.size(); ++n) {
    size_t end = usage.find('\n', start);
    if (end == std::string::npos) end = usage.size();
    out += (n == 0 ? "usage: " : "       ") + usage.substr(start, end - start) + "\n";
    start = end + 1;
  }
  out += spec.about;

  const std::string help_entry = "-h, --help";
  size_t column = help_entry.size();
  for (size_t i = 0; i < spec.option_count; ++i) column = std::max(column, name_and_metavar(spec.options[i]).size());
  column = std::min(column, k_max_name_column);
  const size_t help_at = 2 + column + 2;
  auto entry = [&](const std::string& left, const std::string& help) {
    std::string line = "  " + left;
    if (line.size() + 2 > help_at) line += "\n" + std::string(help_at, ' ');
    else line += std::string(help_at - line.size(), ' ');
    out += line + wrapped(help, help_at);
  };

  const char* section = nullptr;
  for (size_t i = 0; i < spec.option_count; ++i) {
    const option_spec& o = spec.options[i];
    if (!section || std::string(section) != o.section) {
      section = o.section;
      out += std::string("\n") + (*section ? section : "options") + ":\n";
    }
    entry(name_and_metavar(o), o.help + details(o));
  }
  entry(help_entry, std::string("this help (also: probe help ") + spec.verb + ")");
  out += std::string("\n") + spec.exit_text + "\n";
  return out;
}

std::string markdown_options(const command_spec& spec) {
  std::string out;
  const char* section = nullptr;
  for (size_t i = 0; i < spec.option_count; ++i) {
    const option_spec& o = spec.options[i];
    if (!section || std::string(section) != o.section) {
      if (section) out += "\n";
      section = o.section;
      if (*section) out += "*" + markdown_text(section) + ":*\n\n";
      out += "| option | value | default | what it does |\n| --- | --- | --- | --- |\n";
    }
    out += "|";
    for (const std::string& cell :
         {markdown_code(name_and_metavar(o)), value_column(o), markdown_text(o.default_text), markdown_text(o.help)})
      out += cell.empty() ? " |" : " " + cell + " |";
    out += "\n";
  }
  return out;
}

}  // namespace probe_cli
