// What a dump does, made once from the options each time they change: formats, budgets,
// background writers, and which ops, stages and slots it selects. A configuration is
// immutable once published: ops in flight keep the one they began with. Internal header.
#pragma once
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../core/context.hpp"
#include "../core/options.hpp"
#include "../util/log.hpp"
#include "../util/regex.hpp"
#include "dump_filter.hpp"
#include "dump_writer.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

struct dump_config {
  bool on = false, to_stdout = false, text = false, npy = false, snapshots = false, dot = false,
       html = false;
  std::string base;
  std::vector<std::string> flags;  // the run's flag words, for the run record
  options src;                     // what it was made from (the same options reuse it)
  uint64_t max_bytes = 0;
  int64_t max_ops = 0;
  int threads = 0;           // background writers for small files (0: none)
  uint64_t queue_bytes = 0;  // what they may hold
  regex op_re, type_re, stage_re, slot_re;  // empty pattern matches everything
  std::unique_ptr<regex> op_exclude, type_exclude, slot_exclude;  // null: nothing excluded
  bool select_nothing = false;  // a filter that cannot be read: the dump is never wider than asked
  std::vector<step_range> steps;  // --probe_dump_steps (empty: every step)
  int64_t every = 1;              // --probe_dump_every
};

// False, with one message, when the pattern cannot be compiled: the caller then selects
// nothing rather than everything.
inline bool compile_filter(const char* pattern, const char* flag, regex& out) {
  if (!pattern || !*pattern) return true;
  std::string err;
  if (out.compile(pattern, &err)) return true;
  // Lookaround is how other engines write "all but": the exclusion flags say it here.
  const bool exclusion = err.find("lookaround") != std::string::npos && strstr(flag, "stage") == nullptr &&
                         strstr(flag, "exclude") == nullptr;
  log("%s: %s; nothing is dumped%s%.*s%s", flag, err.c_str(), exclusion ? " (to leave names out, use " : "",
      exclusion ? static_cast<int>(strlen(flag) - 3) : 0, flag, exclusion ? "_exclude_re)" : "");
  return false;
}
inline bool compile_exclusion(const char* pattern, const char* flag, std::unique_ptr<regex>& out) {
  if (!pattern || !*pattern) return true;
  out.reset(new regex());
  return compile_filter(pattern, flag, *out);
}

inline dump_config* make_dump_config(const options& o, std::vector<std::string> flags) {
  dump_config* c = new dump_config();
  try {
    c->src = o;
    c->on = o.dump;
    c->to_stdout = o.dump_to_stdout;
    c->base = o.dump_to_stdout ? std::string() : std::string(o.dump_to);
    c->text = o.dump_as_text;
    c->npy = o.dump_as_npy && !o.dump_stats_only;
    c->snapshots = o.dump_snapshots;
    c->dot = o.dump_as_dot;
    c->html = o.dump_as_html;
    c->max_bytes = o.dump_max_bytes;
    c->max_ops = o.dump_max_ops;
    c->flags = std::move(flags);
    const int64_t threads = o.dump_threads < 0 ? 0 : o.dump_threads;
    if (threads > dump_writers::k_max_threads)
      log("--probe_dump_threads=%lld: %d writer threads at most are started", static_cast<long long>(threads),
          dump_writers::k_max_threads);
    c->threads = c->to_stdout ? 0 : threads > dump_writers::k_max_threads ? dump_writers::k_max_threads : static_cast<int>(threads);
    c->queue_bytes = o.dump_queue_bytes;
    bool bad_steps = false;
    // Every filter is compiled, so that each bad one says so.
    int bad_filters = 0;
    bad_filters += !compile_filter(o.dump_op_re, "--probe_dump_op_re", c->op_re);
    bad_filters += !compile_filter(o.dump_type_re, "--probe_dump_type_re", c->type_re);
    bad_filters += !compile_filter(o.dump_stage_re, "--probe_dump_stage_re", c->stage_re);
    bad_filters += !compile_filter(o.dump_slot_re, "--probe_dump_slot_re", c->slot_re);
    bad_filters += !compile_exclusion(o.dump_op_exclude_re, "--probe_dump_op_exclude_re", c->op_exclude);
    bad_filters += !compile_exclusion(o.dump_type_exclude_re, "--probe_dump_type_exclude_re", c->type_exclude);
    bad_filters += !compile_exclusion(o.dump_slot_exclude_re, "--probe_dump_slot_exclude_re", c->slot_exclude);
    c->steps = parse_step_ranges(o.dump_steps, "--probe_dump_steps", &bad_steps);
    c->every = o.dump_every > 1 ? o.dump_every : 1;
    c->select_nothing = bad_filters > 0 || bad_steps || o.dump_narrowing_unread;
    if (c->select_nothing) stop_if_strict(o);
    // The IR filters are compiled when the first module is dumped (ir_dump_impl.hpp, which says
    // what a bad one does); strict flags stop the program now, as for the filters above.
    if (o.strict_flags)
      for (const auto& f : {std::make_pair(o.dump_module_re, "--probe_dump_module_re"),
                            std::make_pair(o.dump_pass_re, "--probe_dump_pass_re")}) {
        regex r;
        std::string err;
        if (f.first[0] && !r.compile(f.first, &err)) {
          log("%s: %s", f.second, err.c_str());
          stop_if_strict(o);
        }
      }
  } catch (...) {
    delete c;
    throw;
  }
  return c;
}

inline bool step_selected(const dump_config& c, int64_t step) noexcept {
  return step_in(c.steps, step) && step_every(c.every, step);
}

// The op filters (name, type, step); stage and slot filters apply per tensor.
inline bool dump_selects(const dump_config& c, const op_record& r) noexcept {
  if (c.select_nothing || !c.op_re.search(r.name) || !c.type_re.search(r.type)) return false;
  if ((c.op_exclude && c.op_exclude->search(r.name)) || (c.type_exclude && c.type_exclude->search(r.type))) return false;
  return step_selected(c, r.step);
}

}  // namespace detail
PROBE_END_NAMESPACE
