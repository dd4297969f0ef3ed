// The engine's IR at compiler passes: an engine that rewrites its graph before running it
// (constant folding, fusion, layout, partitioning) names each compiled graph once
// (probe::ir_module) and each pass around it (probe::ir_pass), and hands a printer: a callable
// that appends the IR to a probe::ir_out. The printer runs only when the module and the pass
// match the flags (--probe_dump_module_re, --probe_dump_pass_re, --probe_dump_ir_min_ops);
// with dumping off a module and a pass cost one branch each, and nothing is printed.
//
//   probe::ir_module m("resnet50.fwd", graph.size(), [&](probe::ir_out& o) { o << graph.text(); });
//   { probe::ir_pass p(m, "fusion"); run_fusion(graph); }
//   { probe::ir_pass p(m, "layout", other_printer); run_layout(graph); }
//
// Light header: fast paths inline, the rest out of line (ir_dump_impl.hpp).
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../core/gate.hpp"
#include "../core/op.hpp"
#include "../util/config.hpp"

// No <string> or <vector> here: every file that includes probe.hpp would pay for them (the
// marking file's compile cost, tests/compile). Names and text are (pointer, length) pairs:
// a const char*, or anything with data() and size() (std::string, std::string_view).

PROBE_BEGIN_NAMESPACE

namespace detail {
inline void ir_text_of(const char* s, const char** p, size_t* n) noexcept {
  *p = s ? s : "";
  *n = s ? strlen(s) : 0;
}
template <class S>
auto ir_text_of(const S& s, const char** p, size_t* n) noexcept -> decltype(void(s.data()), void(s.size())) {
  *p = s.data();
  *n = static_cast<size_t>(s.size());
}
struct ir_buffer;
}  // namespace detail

// Where a printer writes the IR: text (`out << ...`), or a small graph (nodes with
// attributes, edges; nodes in topological order) that probe renders as text, DOT or HTML
// (--probe_dump_ir_as_dot/_html); or both (text files then hold the text). Only probe makes
// one; what it holds lives out of line (ir_dump_impl.hpp).
class ir_out {
 public:
  ir_out(const ir_out&) = delete;
  ir_out& operator=(const ir_out&) = delete;

  PROBE_API ir_out& write(const char* text, size_t n);
  template <class S>
  ir_out& operator<<(const S& s) {
    const char* p;
    size_t n;
    detail::ir_text_of(s, &p, &n);
    return write(p, n);
  }
  ir_out& operator<<(const char* s) { return write(s ? s : "", s ? strlen(s) : 0); }
  ir_out& operator<<(char c) { return write(&c, 1); }
  PROBE_API ir_out& operator<<(long long v);
  ir_out& operator<<(int v) { return *this << static_cast<long long>(v); }
  ir_out& operator<<(long v) { return *this << static_cast<long long>(v); }
  PROBE_API ir_out& operator<<(unsigned long long v);
  ir_out& operator<<(unsigned long v) { return *this << static_cast<unsigned long long>(v); }
  ir_out& operator<<(unsigned v) { return *this << static_cast<unsigned long long>(v); }
  PROBE_API ir_out& operator<<(double v);

  // The graph form: a node, then attributes of the last node given, and edges between ids.
  template <class A, class B>
  ir_out& node(const A& id, const B& label) {
    const char *i, *l;
    size_t ni, nl;
    detail::ir_text_of(id, &i, &ni), detail::ir_text_of(label, &l, &nl);
    return add_node(i, ni, l, nl);
  }
  template <class A, class B>
  ir_out& attr(const A& key, const B& value) {
    const char *k, *v;
    size_t nk, nv;
    detail::ir_text_of(key, &k, &nk), detail::ir_text_of(value, &v, &nv);
    return add_attr(k, nk, v, nv);
  }
  template <class A, class B, class C = const char*>
  ir_out& edge(const A& from, const B& to, const C& label = "") {
    const char *f, *t, *l;
    size_t nf, nt, nl;
    detail::ir_text_of(from, &f, &nf), detail::ir_text_of(to, &t, &nt), detail::ir_text_of(label, &l, &nl);
    return add_edge(f, nf, t, nt, l, nl);
  }
  PROBE_API ir_out& add_node(const char* id, size_t nid, const char* label, size_t nlabel);
  PROBE_API ir_out& add_attr(const char* key, size_t nkey, const char* value, size_t nvalue);
  PROBE_API ir_out& add_edge(const char* from, size_t nfrom, const char* to, size_t nto, const char* label, size_t nlabel);

 private:
  ir_out() = default;
  friend struct detail::ir_buffer;
};

#if defined(PROBE_DISABLE)
// Compiled out: no printer is ever called; these only let printers compile.
inline ir_out& ir_out::write(const char*, size_t) { return *this; }
inline ir_out& ir_out::operator<<(long long) { return *this; }
inline ir_out& ir_out::operator<<(unsigned long long) { return *this; }
inline ir_out& ir_out::operator<<(double) { return *this; }
inline ir_out& ir_out::add_node(const char*, size_t, const char*, size_t) { return *this; }
inline ir_out& ir_out::add_attr(const char*, size_t, const char*, size_t) { return *this; }
inline ir_out& ir_out::add_edge(const char*, size_t, const char*, size_t, const char*, size_t) { return *this; }
#endif

namespace detail {
// A printer, type-erased: the callable's address and a function that calls it.
using ir_print_fn = void (*)(const void* printer, ir_out& out);
template <class F>
void ir_call(const void* printer, ir_out& out) {
  (*static_cast<const F*>(printer))(out);
}
struct ir_printer {
  const void* self = nullptr;
  ir_print_fn call = nullptr;
};
struct ir_module_state;

#if !defined(PROBE_DISABLE)
// Null when the module is not dumped (filtered out, too small, dumping failed).
PROBE_API ir_module_state* ir_module_open(const char* name, size_t len, int64_t op_count, bool own_printer) noexcept;
// Writes the module as it leaves the pipeline, then frees the state.
PROBE_API void ir_module_close(ir_module_state* m, ir_printer own) noexcept;
PROBE_API void ir_pass_begin(ir_module_state* m, const char* pass, size_t len, ir_printer p) noexcept;
PROBE_API void ir_pass_end(ir_module_state* m, ir_printer p) noexcept;
PROBE_API uint32_t ir_module_id(const ir_module_state* m) noexcept;
#endif
}  // namespace detail

struct ir_no_printer {
  void operator()(ir_out&) const noexcept {}
};
namespace detail {
template <class F>
struct ir_has_printer {
  static constexpr bool value = true;
};
template <>
struct ir_has_printer<ir_no_printer> {
  static constexpr bool value = false;
};
}  // namespace detail

// One compiled graph going through the pipeline. Its own printer (optional) writes the
// module as it leaves the pipeline; without one, the last pass's printer is used for that.
class ir_module_base {
 public:
  ir_module_base(const ir_module_base&) = delete;
  ir_module_base& operator=(const ir_module_base&) = delete;

  // The id in file names and manifest records (module_0003...): 0 when not dumped.
  uint32_t id() const noexcept {
#if defined(PROBE_DISABLE)
    return 0;
#else
    return state_ ? detail::ir_module_id(state_) : 0;
#endif
  }
  detail::ir_module_state* state() const noexcept { return state_; }

 protected:
  // The name is looked at (strlen) only past the branch.
  template <class N>
  ir_module_base(const N& name, int64_t op_count, bool own_printer) noexcept {
#if !defined(PROBE_DISABLE)
    if (PROBE_UNLIKELY(detail::gate_on(detail::gate_ir))) {
      const char* p;
      size_t n;
      detail::ir_text_of(name, &p, &n);
      state_ = detail::ir_module_open(p, n, op_count, own_printer);
    }
#else
    (void)name, (void)op_count, (void)own_printer;
#endif
  }
  ~ir_module_base() = default;
  void close(detail::ir_printer own) noexcept {
#if !defined(PROBE_DISABLE)
    if (PROBE_UNLIKELY(state_ != nullptr)) detail::ir_module_close(state_, own);
    state_ = nullptr;
#else
    (void)own;
#endif
  }

 private:
  detail::ir_module_state* state_ = nullptr;
};

template <class F = ir_no_printer>
class ir_module : public ir_module_base {
 public:
  template <class N>
  ir_module(const N& name, int64_t op_count = -1) noexcept : ir_module_base(name, op_count, false) {}
  template <class N>
  ir_module(const N& name, int64_t op_count, F printer)
      : ir_module_base(name, op_count, detail::ir_has_printer<F>::value), printer_(static_cast<F&&>(printer)) {}
  ~ir_module() { close(printer()); }

  detail::ir_printer printer() const noexcept {
    if (!detail::ir_has_printer<F>::value) return {};
    return {&printer_, &detail::ir_call<F>};
  }

 private:
  F printer_{};
};

// One pass of the pipeline over a module: the IR is printed before it (when needed) and
// after it, when the module is dumped and the pass name matches --probe_dump_pass_re.
template <class F = ir_no_printer>
class ir_pass {
 public:
  // Names (const char*, std::string, string_view) are looked at only past the branch.
  template <class G, class N>
  ir_pass(ir_module<G>& m, const N& name) noexcept : m_(m.state()), own_(false) {
    if (PROBE_UNLIKELY(m_ != nullptr)) {
      module_printer_ = m.printer();
      begin(name);
    }
  }
  template <class N>
  ir_pass(ir_module_base& m, const N& name, F printer) : m_(m.state()), own_(true), printer_(static_cast<F&&>(printer)) {
    if (PROBE_UNLIKELY(m_ != nullptr)) begin(name);
  }
  ~ir_pass() {
#if !defined(PROBE_DISABLE)
    if (PROBE_UNLIKELY(m_ != nullptr)) detail::ir_pass_end(m_, current());
#endif
  }
  ir_pass(const ir_pass&) = delete;
  ir_pass& operator=(const ir_pass&) = delete;

 private:
  detail::ir_printer current() const noexcept {
    if (own_) return {&printer_, &detail::ir_call<F>};
    return module_printer_;
  }
  template <class N>
  void begin(const N& name) noexcept {
#if !defined(PROBE_DISABLE)
    const char* p;
    size_t n;
    detail::ir_text_of(name, &p, &n);
    detail::ir_pass_begin(m_, p, n, current());
#else
    (void)name;
#endif
  }
  detail::ir_module_state* m_;
  bool own_;
  detail::ir_printer module_printer_{};
  F printer_{};
};

// While it lives, ops begun on this thread were compiled from module `m`: their manifest
// records and snapshots name its id, so a divergent op leads to the IR it came from.
class ir_run {
 public:
  explicit ir_run(const ir_module_base& m) noexcept : ir_run(m.id()) {}
  explicit ir_run(uint32_t module_id) noexcept {
#if !defined(PROBE_DISABLE)
    prev_ = detail::t_ir_running;
    detail::t_ir_running = module_id;
#else
    (void)module_id;
#endif
  }
  ~ir_run() {
#if !defined(PROBE_DISABLE)
    detail::t_ir_running = prev_;
#endif
  }
  ir_run(const ir_run&) = delete;
  ir_run& operator=(const ir_run&) = delete;

 private:
#if !defined(PROBE_DISABLE)
  uint32_t prev_ = 0;
#endif
};

PROBE_END_NAMESPACE
