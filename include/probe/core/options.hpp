// The flags probe understands and the options struct they fill. Light header.
//
// Flags come from the PROBE_FLAGS environment variable (XLA_FLAGS syntax), from files named
// in it, and from probe::init(argc, argv). Parsed once, at first use, thread-safe.
#pragma once
#include "dtype.hpp"

// X(kind, name, default, help). Every flag is spelled --probe_<name> on the command line.
// Kinds: boolean (also on|off, true|false, 1|0, --probe_no<name>), string, size (bytes,
// K/M/G suffixes), integer, choice (one of the names listed after a ':' in the help).
#define PROBE_FLAG_LIST(X)                                                                        \
  X(string, dump_to, "", "enable dumping into DIR ('-' = stdout, text only)")                     \
  X(boolean, dump_as_text, false, "text io-dump per op (the default format when none is named)") \
  X(boolean, dump_as_npy, false, "one .npy file per tensor")                                      \
  X(boolean, dump_snapshots, false, "replayable snapshot per op execution (inputs before, outputs after)") \
  X(boolean, dump_as_dot, false, "data-flow graph as Graphviz DOT at exit")                        \
  X(boolean, dump_as_html, false, "data-flow graph as a self-contained HTML page at exit")        \
  X(string, dump_op_re, "", "dump only ops whose name matches RE (partial match)")                \
  X(string, dump_type_re, "", "dump only ops whose type matches RE (partial match)")              \
  X(string, dump_stage_re, "", "dump only stages matching RE: 'before' (inputs), 'after' (outputs)") \
  X(string, dump_slot_re, "", "dump only tensors whose slot name matches RE (partial match)")      \
  X(string, dump_op_exclude_re, "", "do not dump ops whose name matches RE (partial match)")     \
  X(string, dump_type_exclude_re, "", "do not dump ops whose type matches RE (partial match)")   \
  X(string, dump_slot_exclude_re, "", "do not dump tensors whose slot name matches RE (partial match)") \
  X(string, dump_steps, "", "dump only ops whose step is in LIST: a, a:b (a..b-1), a: or :b, comma-separated") \
  X(integer, dump_every, 0, "dump only ops whose step is a multiple of N (0 or 1: every step)")   \
  X(size, dump_max_bytes, 0, "stop dumping after N bytes of tensor files (K/M/G suffixes; 0 = no limit)") \
  X(integer, dump_max_ops, 0, "stop dumping after N op executions (0 = no limit)")               \
  X(boolean, dump_stats_only, false, "manifest with health stats, no tensor files")              \
  X(string, dump_module_re, "", "dump the IR only of engine modules whose name matches RE (partial match)") \
  X(string, dump_pass_re, "",                                                                      \
    "dump a module's IR after every compiler pass whose name matches RE ('.*': all; default: as it enters and leaves the pipeline only)") \
  X(integer, dump_ir_min_ops, 0, "dump the IR only of modules with at least N ops (0 = every module)") \
  X(boolean, dump_ir_as_text, false, "engine IR as text files (the default IR format when none is named)") \
  X(boolean, dump_ir_as_dot, false, "engine IR as Graphviz DOT (the graph a printer gives, or its text in one box)") \
  X(boolean, dump_ir_as_html, false, "engine IR as a self-contained HTML page (graph drawing and text)") \
  X(integer, dump_threads, 2, "background threads writing small dump files (0 = write on the op's thread)") \
  X(size, dump_queue_bytes, 67108864, "memory for files waiting for those threads; ops wait when it is full") \
  X(boolean, print, true, "debug prints (probe::print)")                                          \
  X(string, print_to, "", "write debug prints to FILE instead of stderr")                         \
  X(boolean, callback, true, "run probe::callback functions")                                     \
  X(choice, breakpoint, "auto",                                                                    \
    "what a breakpoint does: auto|prompt|trap|dump|abort|off (auto: prompt on a tty, else one line and go on)") \
  X(string, breakpoint_commands, "",                                                               \
    "feed the breakpoint prompt from FILE: '@ FILE:LINE', '@ NAME', '@ hit N' blocks per stop (implies the prompt)") \
  X(string, break_if, "", "stop at a breakpoint only when COND holds: op=RE, type=RE, step>=N, hit==N joined by && and ||") \
  X(size, breakpoint_keep_bytes, 268435456,                                                        \
    "memory for copies of the tensors open ops recorded, which breakpoint frames show (whole process); past it a frame shows shape and dtype only") \
  X(boolean, break_on_nonfinite, false, "breakpoint on the first op output holding NaN or Inf")   \
  X(string, break_on_abs_above, "", "breakpoint on the first op output or print argument with |value| > X") \
  X(boolean, timing, false, "time scopes and ops")                                                 \
  X(boolean, timing_summary, false, "print a timing summary at exit (implies --probe_timing)")     \
  X(integer, timing_summary_rows, 30, "rows per table of the timing summary; the rest are one line (0 = all)") \
  X(string, trace_to, "", "write a Chrome trace (JSON) to FILE (implies --probe_timing)")          \
  X(integer, trace_max_events, 50000000, "stop recording trace events after N (0 = no limit)")    \
  X(choice, timing_clock, "auto", "timing clock: auto|tsc|monotonic (auto: invariant TSC when trusted)") \
  X(boolean, reference, false, "ask the engine for its reference (naive) kernels")                \
  X(boolean, reproducible, false, "ask the engine for deterministic algorithms (the same output every run)") \
  X(string, replay, "",                                                                            \
    "re-run snapshots alone with the registered kernels, then exit 0 match, 1 mismatch, 2 error: PATH is a snapshot, a dump folder or a glob (several: one per line)") \
  X(string, replay_op_re, "", "replay only snapshots whose 'op#occurrence' matches RE (partial match)") \
  X(boolean, replay_fake_data, false,                                                              \
    "replay on seeded random inputs (recorded shapes, dtypes and value ranges); outputs are checked for NaN/Inf, not compared") \
  X(integer, replay_seed, 0, "seed of --probe_replay_fake_data")                                   \
  X(integer, replay_iterations, 0, "time N more runs of each kernel alone: min, median, p95 (0 = no timing)") \
  X(string, replay_atol, "", "absolute tolerance of replayed outputs (default: by dtype, as probe compare)") \
  X(string, replay_rtol, "", "relative tolerance of replayed outputs (default: by dtype, as probe compare)") \
  X(boolean, replay_write_mismatches, false, "write each mismatching output as replay.out.SLOT.npy in its snapshot folder") \
  X(boolean, replay_require_kernels, false,                                                       \
    "an op without a registered kernel is an error (exit 2); without it such ops are skipped with one line") \
  X(boolean, replay_isolate, false,                                                                \
    "replay every snapshot in a child process (always done for snapshots of ops that crashed or threw)") \
  X(boolean, strict_flags, false, "make an unknown or malformed flag fatal (exit code 2)")          \
  X(boolean, help, false, "list every flag with its default and meaning")

PROBE_BEGIN_NAMESPACE

enum class breakpoint_mode : uint8_t { auto_ = 0, prompt, trap, dump, abort_, off };

struct options {
#define PROBE_OPTION_FIELD_boolean(name, def) bool name = def;
#define PROBE_OPTION_FIELD_string(name, def) const char* name = def;
#define PROBE_OPTION_FIELD_size(name, def) uint64_t name = def;
#define PROBE_OPTION_FIELD_integer(name, def) int64_t name = def;
#define PROBE_OPTION_FIELD_choice(name, def) const char* name = def;
#define PROBE_OPTION_FIELD(kind, name, def, help) PROBE_OPTION_FIELD_##kind(name, def)
  PROBE_FLAG_LIST(PROBE_OPTION_FIELD)
#undef PROBE_OPTION_FIELD

  // Intent filled in from the flags above.
  bool dump = false;            // any dump flag given
  bool dump_to_stdout = false;  // no directory, or '-'
  // A dump filter or budget given a value that cannot be read (--probe_dump_every=abc,
  // --probe_dump_max_bytes=10X): the dump selects nothing, never wider than asked.
  bool dump_narrowing_unread = false;
  breakpoint_mode breakpoint_as = breakpoint_mode::auto_;  // 'auto' resolved at break time
  bool frames = false;          // --probe_breakpoint given (not off): open ops are frames
  // A stop can read op frames (a prompt or a dump, not one line): ops copy the tensors they
  // record, since the program may free or rewrite them before a stop inside the op.
  bool frame_values = false;
};

#if defined(PROBE_DISABLE)
inline const options& options_ref() noexcept {
  static const options o{};
  return o;
}
inline void init(int&, char**) noexcept {}
inline void set_flags(const char*) noexcept {}
#else
// The parsed flags (parses them on first call).
PROBE_API const options& options_ref() noexcept;

namespace detail {
// A flag error: under --probe_strict_flags the process stops here (exit 2, after the messages
// above), else it returns. For the parser's errors and for values an effect finds malformed
// when it reads them (a filter that does not compile, a condition, a number).
PROBE_API void stop_if_strict(const options& o) noexcept;
}  // namespace detail

// Also accept --probe_* flags on the command line; they are removed from argv.
PROBE_API void init(int& argc, char** argv) noexcept;

// Re-read flags from a string (XLA_FLAGS syntax), replacing those PROBE_FLAGS gave (the
// command-line flags init() took stay). For tests
// and for engines that take flags from their own configuration.
PROBE_API void set_flags(const char* flags) noexcept;
#endif

#if defined(PROBE_DISABLE)
inline bool reference_mode() noexcept { return false; }
inline bool reproducible_mode() noexcept { return false; }
#else
inline bool reference_mode() noexcept { return options_ref().reference; }
// --probe_reproducible: the engine picks only deterministic algorithms (no atomics, reductions
// in a fixed order), as cuDNN's deterministic mode; `probe jitter` tells whether it must.
inline bool reproducible_mode() noexcept { return options_ref().reproducible; }
#endif

PROBE_END_NAMESPACE
