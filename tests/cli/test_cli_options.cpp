// The option tables of the probe CLI: parsing, usage errors, help and markdown, and the
// defaults the tables state against the defaults the analysis really uses.
#include <doctest/doctest.h>

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/bisect.hpp"
#include "analysis/changepoint.hpp"
#include "analysis/compare_types.hpp"
#include "analysis/regress_report.hpp"
#include "probe/options.hpp"
#include "probe/verbs.hpp"

using namespace probe_cli;

namespace {

const option_spec k_options[] = {
    text("--name", "NAME", "a text"),
    text("--mode", "MODE", "a choice").one_of("fast|exact|lazy").by_default("fast"),
    text("--tag", "TAG", "tags").repeated(),
    integer("--count", "N", 1, 10, "a count").by_default("3"),
    integer("--step", "N", "any whole number"),
    number("--ratio", "R", 0, 1, "a fraction"),
    number("--value", "V", "any number"),
    flag("--on", "turn it on"),
    flag("--off", "turn it off"),
};

command_spec spec(operand_kind operands) {
  return {"demo",
          "a verb for tests",
          "probe demo [options] FILE...",
          "About it.\n",
          k_options,
          sizeof k_options / sizeof k_options[0],
          "exit: 0 ok, 2 bad input",
          2,
          "",
          operands};
}

struct parse_result {
  parse_status status;
  parsed_options options;
  std::string error;
};

parse_result parse(std::vector<const char*> words, operand_kind operands = operand_kind::words) {
  static command_spec specs[] = {spec(operand_kind::words), spec(operand_kind::command_after_dashdash),
                                 spec(operand_kind::words_then_command)};
  words.insert(words.begin(), "demo");
  parse_result r;
  r.status = parse_command_line(specs[static_cast<int>(operands)], static_cast<int>(words.size()), words.data(),
                                &r.options, &r.error);
  return r;
}

std::string error_of(std::vector<const char*> words, operand_kind operands = operand_kind::words) {
  const parse_result r = parse(std::move(words), operands);
  CHECK(r.status == parse_status::usage_error);
  return r.error;
}

const command_spec* const k_verbs[] = {&regress_command, &bisect_run_command, &compare_command, &show_command,
                                       &replay_command,  &bundle_command};

const option_spec& option_of(const command_spec& c, const std::string& name) {
  for (size_t i = 0; i < c.option_count; ++i)
    if (name == c.options[i].name) return c.options[i];
  FAIL("no option " << name << " in probe " << c.verb);
  throw std::logic_error("unreachable");
}

double default_of(const command_spec& c, const std::string& name) {
  const option_spec& o = option_of(c, name);
  char* end = nullptr;
  const double v = std::strtod(o.default_text, &end);
  CHECK_MESSAGE(*o.default_text != '\0', name << " states its default");
  CHECK_MESSAGE(*end == '\0', name << "'s default is a plain number");
  return v;
}

}  // namespace

TEST_CASE("options: --name value, --name=value, operands, and -- ending the options") {
  const parse_result r = parse({"a", "--name", "x", "--count=4", "b", "--ratio", "0.5", "--", "--on", "-"});
  REQUIRE(r.status == parse_status::ok);
  std::string name;
  long long count = 0;
  double ratio = 0;
  CHECK(r.options.get("--name", &name));
  CHECK(name == "x");
  CHECK(r.options.get("--count", &count));
  CHECK(count == 4);
  CHECK(r.options.get("--ratio", &ratio));
  CHECK(ratio == 0.5);
  CHECK_FALSE(r.options.given("--on"));  // after --: an operand
  CHECK(r.options.operands() == std::vector<std::string>{"a", "b", "--on", "-"});
  CHECK_FALSE(r.options.get("--mode", &name));
  CHECK(name == "x");  // untouched when absent
}

TEST_CASE("options: values that look like options, repeats, and options that undo each other") {
  const parse_result r = parse({"--value", "-5", "--step=-2", "--name", "a", "--name", "b", "--tag", "t1", "--tag=t2",
                                "--on", "--off", "--on", "-"});
  REQUIRE(r.status == parse_status::ok);
  double value = 0;
  long long step = 0;
  std::string name;
  CHECK((r.options.get("--value", &value) && value == -5));
  CHECK((r.options.get("--step", &step) && step == -2));
  CHECK((r.options.get("--name", &name) && name == "b"));  // the last one wins
  CHECK(r.options.values("--tag") == std::vector<std::string>{"t1", "t2"});
  CHECK(std::string(r.options.last_of({"--on", "--off"})) == "--on");
  CHECK(parse({}).options.last_of({"--on", "--off"}) == nullptr);
  CHECK(r.options.operands() == std::vector<std::string>{"-"});
  CHECK(parse({"--name="}).options.values("--name") == std::vector<std::string>{""});
}

TEST_CASE("options: of options that contradict each other, one at most") {
  std::string error;
  CHECK(std::string(parse({"--on", "--on"}).options.only_one_of({"--on", "--off"}, &error)) == "--on");
  CHECK(parse({}).options.only_one_of({"--on", "--off"}, &error) == nullptr);
  CHECK(error.empty());
  CHECK(parse({"--off", "--on"}).options.only_one_of({"--on", "--off"}, &error) == nullptr);
  CHECK(error == "--on and --off contradict each other: give one");
}

TEST_CASE("options: --help and -h, wherever they are before --") {
  CHECK(parse({"a", "--on", "--help"}).status == parse_status::help);
  CHECK(parse({"-h"}).status == parse_status::help);
  CHECK(parse({"--", "--help"}).status == parse_status::ok);
}

// A value is taken whatever it looks like (-5, --weird), except one of the verb's options:
// "--json --quiet" forgot the file. Spelled with '=', any value is a value.
TEST_CASE("options: an option where a value belongs is a usage error, not the value") {
  CHECK(error_of({"--name", "--on"}) ==
        "--name needs a value (NAME), not the option --on (a value that is spelled like one: --name=--on)");
  CHECK(error_of({"--name", "--help"}) ==
        "--name needs a value (NAME), not the option --help (a value that is spelled like one: --name=--help)");
  CHECK(parse({"--name=--on"}).options.values("--name") == std::vector<std::string>{"--on"});
  CHECK(parse({"--name", "--weird"}).options.values("--name") == std::vector<std::string>{"--weird"});
  CHECK(parse({"--step", "-5"}).status == parse_status::ok);
}

TEST_CASE("options: each usage error is one sentence naming the option") {
  CHECK(error_of({"--count", "11"}) == "--count takes a whole number from 1 to 10, not '11'");
  CHECK(error_of({"--count=2.5"}) == "--count takes a whole number from 1 to 10, not '2.5'");
  CHECK(error_of({"--step", "x"}) == "--step takes a whole number, not 'x'");
  CHECK(error_of({"--step", "99999999999999999999"}) == "--step takes a whole number, not '99999999999999999999'");
  CHECK(error_of({"--ratio", "2"}) == "--ratio takes a number from 0 to 1, not '2'");
  CHECK(error_of({"--value", "inf"}) == "--value takes a number, not 'inf'");
  CHECK(error_of({"--value", ""}) == "--value takes a number, not ''");
  CHECK(error_of({"--mode", "exakt"}) == "--mode takes fast, exact or lazy, not 'exakt' (did you mean exact?)");
  CHECK(error_of({"--mode", "zzz"}) == "--mode takes fast, exact or lazy, not 'zzz'");
  CHECK(error_of({"--name"}) == "--name needs a value (NAME)");
  CHECK(error_of({"--name", "--"}) == "--name needs a value (NAME)");
  CHECK(error_of({"--on=1"}) == "--on takes no value, not '1'");
  CHECK(error_of({"--nmae", "x"}) == "unknown option '--nmae' (did you mean --name?)");
  CHECK(error_of({"--coutn=3"}) == "unknown option '--coutn=3' (did you mean --count?)");
  CHECK(error_of({"-ratio"}) == "unknown option '-ratio' (did you mean --ratio?)");
  CHECK(error_of({"--rat"}) == "unknown option '--rat' (did you mean --ratio?)");
  CHECK(error_of({"--bogus"}) == "unknown option '--bogus' (probe demo --help lists them)");
}

TEST_CASE("options: a command after --, and nothing else, where the verb runs one") {
  const parse_result r = parse({"--on", "--", "./bench", "--size", "256"}, operand_kind::command_after_dashdash);
  REQUIRE(r.status == parse_status::ok);
  CHECK(r.options.command() == std::vector<std::string>{"./bench", "--size", "256"});
  CHECK(r.options.operands().empty());
  CHECK(error_of({"./bench"}, operand_kind::command_after_dashdash) ==
        "unexpected './bench': the command goes after --");
}

TEST_CASE("options: operands, then a command after --, where the verb takes both") {
  const parse_result r = parse({"dir1", "--on", "dir2", "--", "./engine", "--on"}, operand_kind::words_then_command);
  REQUIRE(r.status == parse_status::ok);
  CHECK(r.options.operands() == std::vector<std::string>{"dir1", "dir2"});
  CHECK(r.options.command() == std::vector<std::string>{"./engine", "--on"});
  CHECK(r.options.given("--on"));
  const parse_result none = parse({"dir1"}, operand_kind::words_then_command);
  REQUIRE(none.status == parse_status::ok);
  CHECK(none.options.command().empty());
}

TEST_CASE("options: reading an option the table lacks, or as the wrong kind, is a programming error") {
  const parse_result r = parse({});
  std::string s;
  double d = 0;
  CHECK_THROWS_AS(r.options.given("--nmae"), std::logic_error);
  CHECK_THROWS_AS(r.options.get("--count", &d), std::logic_error);
  CHECK_THROWS_AS(r.options.get("--on", &s), std::logic_error);
  long long v = 0;
  CHECK_THROWS_AS(r.options.get("--ratio", &v), std::logic_error);
}

TEST_CASE("options: closest_match suggests typos and unambiguous prefixes, nothing far") {
  const std::vector<std::string> names = {"--metric", "--max-pvalue", "--min-points", "--label-re", "--all"};
  CHECK(closest_match("--metirc", names) == "--metric");
  CHECK(closest_match("--lable-re", names) == "--label-re");
  CHECK(closest_match("--Max-Pvalue", names) == "--max-pvalue");
  CHECK(closest_match("--min-p", names) == "--min-points");
  CHECK(closest_match("--m", names) == "");   // too short to be a prefix of one
  CHECK(closest_match("--ab", names) == "");  // one edit from --all, but half the word
  CHECK(closest_match("--json", names) == "");
}

TEST_CASE("options: help lists every option, aligned, within 100 columns") {
  const command_spec s = spec(operand_kind::words);
  const std::string help = help_text(s);
  CHECK(help.rfind("usage: probe demo [options] FILE...\nAbout it.\n\noptions:\n", 0) == 0);
  CHECK(help.find("  --count N    a count (1 to 10; default 3)\n") != std::string::npos);
  CHECK(help.find("  --mode MODE  a choice (fast, exact or lazy; default fast)\n") != std::string::npos);
  CHECK(help.find("  --tag TAG    tags (repeatable)\n") != std::string::npos);
  CHECK(help.find("  -h, --help   this help (also: probe help demo)\n") != std::string::npos);
  CHECK(help.find("\nexit: 0 ok, 2 bad input\n") != std::string::npos);
  for (const command_spec* verb : k_verbs) {
    const std::string text = help_text(*verb);
    for (size_t i = 0; i < verb->option_count; ++i)
      CHECK_MESSAGE(text.find("  " + std::string(verb->options[i].name)) != std::string::npos,
                    verb->verb << " --help lacks " << verb->options[i].name);
    size_t start = 0;
    while (start < text.size()) {
      const size_t end = text.find('\n', start);
      CHECK_MESSAGE(end - start <= 100, verb->verb << " --help line too long: " << text.substr(start, end - start));
      start = end + 1;
    }
  }
}

TEST_CASE("options: markdown has one row per option, with nothing read as markup") {
  const std::string md = markdown_options(spec(operand_kind::words));
  CHECK(md.rfind("| option | value | default | what it does |\n| --- | --- | --- | --- |\n", 0) == 0);
  CHECK(md.find("| `--mode MODE` | fast, exact or lazy | fast | a choice |\n") != std::string::npos);
  CHECK(md.find("| `--count N` | whole number, 1 to 10 | 3 | a count |\n") != std::string::npos);
  CHECK(md.find("| `--on` | | | turn it on |\n") != std::string::npos);
  for (const command_spec* verb : k_verbs) {
    const std::string table = markdown_options(*verb);
    size_t rows = 0;
    for (size_t at = table.find("\n| `--"); at != std::string::npos; at = table.find("\n| `--", at + 1)) ++rows;
    CHECK_MESSAGE(rows + (table.rfind("| `--", 0) == 0) == verb->option_count, verb->verb);
    CHECK(table.find('<') == std::string::npos);
  }
}

TEST_CASE("options: every verb's table is well formed") {
  for (const command_spec* verb : k_verbs) {
    CAPTURE(verb->verb);
    for (size_t i = 0; i < verb->option_count; ++i) {
      const option_spec& o = verb->options[i];
      CAPTURE(o.name);
      CHECK(std::string(o.name).rfind("--", 0) == 0);
      CHECK(*o.help);
      CHECK((o.kind == value_kind::flag) == (*o.metavar == '\0'));
      for (size_t j = 0; j < i; ++j) CHECK(std::string(o.name) != verb->options[j].name);
    }
  }
}

TEST_CASE("options: the defaults the tables state are the analysis' defaults") {
  const probe::analysis::changepoint_options cp;
  CHECK(default_of(regress_command, "--max-pvalue") == cp.max_pvalue);
  CHECK(default_of(regress_command, "--min-change") == cp.min_change);
  // No fixed minimum unless asked: the evidence decides (changepoint.hpp).
  CHECK(cp.min_points == 0);
  CHECK(std::string(option_of(regress_command, "--min-points").default_text) == "by the evidence");
  const probe::analysis::regress_settings rs;
  CHECK(default_of(regress_command, "--max-transient-runs") == static_cast<double>(rs.max_transient_runs));
  CHECK(default_of(regress_command, "--window") == static_cast<double>(cp.window));
  const probe::analysis::bisect_settings bisect;
  CHECK(default_of(bisect_run_command, "--alpha") == bisect.alpha);
  CHECK(std::string(option_of(bisect_run_command, "--repeat").default_text)
            .rfind(std::to_string(bisect.repeat) + ",", 0) == 0);
  const probe::analysis::check_settings check;
  CHECK(check.mode == probe::analysis::check_mode::elementwise);
  CHECK(std::string(option_of(compare_command, "--check").default_text) == "elementwise");
  CHECK(check.equal_nan);
  CHECK(std::string(option_of(compare_command, "--equal-nan").default_text) == "on");
}
