// A verb's command line, described once as a table of options. From the table come the
// parser (`--name value`, `--name=value`, `--` ending the options, operands), the usage
// errors (one sentence naming the option, with "did you mean" for a near miss), `--help`
// and the markdown table the docs carry. A verb keeps its defaults in its own settings; the
// table's default_text is what help and docs say about them (tests hold the two together).
#pragma once
#include <stddef.h>

#include <initializer_list>
#include <string>
#include <vector>

namespace probe_cli {

enum class value_kind { flag, text, integer, number };

struct option_spec {
  const char* name = "";          // "--metric"
  value_kind kind = value_kind::flag;
  const char* metavar = "";       // "NAME"; flags have none
  const char* help = "";          // one line: what it does
  const char* default_text = "";  // what happens without it, as help shows it ("" = nothing to say)
  const char* choices = "";       // "natural|mtime|given": the only values taken ("" = any)
  double lo = 0, hi = 0;          // integer and number values: the range taken (lo > hi: any)
  bool repeatable = false;        // each use adds a value; otherwise the last use wins
  const char* section = "";       // heading of this option's group in help and docs

  // Copies with one more property, so a table reads as one expression per option.
  constexpr option_spec by_default(const char* text) const {
    option_spec o = *this;
    o.default_text = text;
    return o;
  }
  constexpr option_spec one_of(const char* list) const {
    option_spec o = *this;
    o.choices = list;
    return o;
  }
  constexpr option_spec repeated() const {
    option_spec o = *this;
    o.repeatable = true;
    return o;
  }
  constexpr option_spec under(const char* heading) const {
    option_spec o = *this;
    o.section = heading;
    return o;
  }
  constexpr bool ranged() const { return lo <= hi; }
};

constexpr option_spec flag(const char* name, const char* help) {
  option_spec o;
  o.name = name;
  o.help = help;
  return o;
}
constexpr option_spec text(const char* name, const char* metavar, const char* help) {
  option_spec o = flag(name, help);
  o.kind = value_kind::text;
  o.metavar = metavar;
  o.lo = 1;  // not ranged
  return o;
}
// A whole number from lo to hi (lo > hi: any that fits in 64 bits).
constexpr option_spec integer(const char* name, const char* metavar, double lo, double hi, const char* help) {
  option_spec o = text(name, metavar, help);
  o.kind = value_kind::integer;
  o.lo = lo;
  o.hi = hi;
  return o;
}
constexpr option_spec integer(const char* name, const char* metavar, const char* help) {
  return integer(name, metavar, 1, 0, help);
}
// A finite number from lo to hi (lo > hi: any).
constexpr option_spec number(const char* name, const char* metavar, double lo, double hi, const char* help) {
  option_spec o = integer(name, metavar, lo, hi, help);
  o.kind = value_kind::number;
  return o;
}
constexpr option_spec number(const char* name, const char* metavar, const char* help) {
  return number(name, metavar, 1, 0, help);
}

// What a verb takes besides options: operands (files, folders), or a command after `--`
// (bisect-run: a word before `--` that is not an option is a mistake), or both (replay:
// operands, then `--` and a command).
enum class operand_kind { words, command_after_dashdash, words_then_command };

struct command_spec {
  const char* verb;     // "regress"
  const char* summary;  // one line, for `probe help`
  const char* usage;    // after "usage: "; more forms on more lines
  const char* about;    // what the verb does, between the usage and the options
  const option_spec* options;
  size_t option_count;
  const char* exit_text;         // "exit: 0 ..., 2 bad input"
  int usage_exit;                // exit code of a usage error
  const char* usage_error_note;  // added to each usage error ("" = nothing)
  operand_kind operands;
};

// What the parser found, validated against the table. Getters name an option of the table;
// a name that is not in it is a programming error (std::logic_error), caught by any run.
class parsed_options {
 public:
  parsed_options() = default;
  explicit parsed_options(const command_spec& spec);

  bool given(const char* name) const;
  // The last value given (all of them for a repeatable option); false, *out untouched, when
  // the option is absent.
  bool get(const char* name, std::string* out) const;
  bool get(const char* name, double* out) const;
  bool get(const char* name, long long* out) const;
  bool get(const char* name, size_t* out) const;
  const std::vector<std::string>& values(const char* name) const;
  // Of several options that undo each other (--equal-nan, --no-equal-nan), the one given
  // last; nullptr when none was.
  const char* last_of(std::initializer_list<const char*> names) const;
  // Of several options that contradict each other (--higher-is-better, --lower-is-better),
  // the one given; nullptr when none was, or, with *error, when more than one was: which one
  // was meant cannot be told.
  const char* only_one_of(std::initializer_list<const char*> names, std::string* error) const;

  const std::vector<std::string>& operands() const { return operands_; }
  const std::vector<std::string>& command() const { return command_; }

  // Used by the parser.
  void add(size_t option, std::string value, int position);
  void add_operand(std::string word) { operands_.push_back(std::move(word)); }
  void set_command(std::vector<std::string> words) { command_ = std::move(words); }

 private:
  size_t index_of(const char* name, value_kind kind, bool any_kind) const;

  const command_spec* spec_ = nullptr;
  std::vector<std::vector<std::string>> values_;  // per option of the table
  std::vector<int> last_position_;                // per option: -1 when absent
  std::vector<std::string> operands_, command_;
};

enum class parse_status { ok, help, usage_error };

// Parses the words after the verb (argv[0] is the verb). A usage error leaves its sentence
// in *error; `--help` or `-h` anywhere before `--` asks for the help.
parse_status parse_command_line(const command_spec& spec, int argc, const char* const* argv, parsed_options* out,
                                std::string* error);

// The verb's whole command-line handling: parses; prints the help (returns false, *exit_code
// 0) or a usage error (returns false, *exit_code spec.usage_exit); true when the verb runs.
bool read_command_line(const command_spec& spec, int argc, char** argv, parsed_options* out, int* exit_code);

// Prints "probe VERB: MESSAGE" (and the verb's usage error note) on stderr; returns
// spec.usage_exit. For what the table cannot check (operand counts, option combinations).
int usage_error(const command_spec& spec, const std::string& message);

// `probe VERB --help`: usage, about, the options aligned, the exit codes.
std::string help_text(const command_spec& spec);
// The options as markdown tables (one per section), as docs/cli-*.md carry them.
std::string markdown_options(const command_spec& spec);

// A range bound or default as people write it: 0.001, 1e9 (not 1e+09).
std::string number_text(double v);
// "fast|exact|lazy" as "fast, exact or lazy".
std::string choices_in_words(const char* list);

// The closest of `candidates` to `word` (a typo or an unambiguous prefix); "" when none is
// close enough to suggest.
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace probe_cli
