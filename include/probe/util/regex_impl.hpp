// The regex engine (regex.hpp): parser, compiler, Pike VM and bit-set matcher.
#pragma once
#include <string.h>

#include "regex.hpp"
#include "regex_compile.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

namespace regex_impl {

// Pike VM: every thread advances one byte per step; threads are kept in priority order, so
// the first one to match is the match a backtracking engine would report.
class machine {
  using caps_vector = std::vector<ptrdiff_t>;

 public:
  // slots: 0 (no captures), or the capture slots then the program's loop slots.
  machine(const program& p, int slots) : p_(p), slots_(slots), groups_slots_(slots > 0 ? slots - p.loop_slots : 0) {
    // Without captures a thread is its instruction; with them, its instruction and how many of
    // the loops around it began their iteration here (program::loop_chain).
    const size_t n = slots_ > 0 ? static_cast<size_t>(p.state_base.back()) : p.code.size();
    const size_t ints = 2 * (3 * n);  // two lists: sparse, dense, thread pcs
    ints_ = ints <= sizeof small_ / sizeof small_[0] ? small_ : (big_.resize(ints), big_.data());
    lists_[0].init(ints_, n);
    lists_[1].init(ints_ + 3 * n, n);
    // add() pushes, per state it visits, at most two entries, or one more than the capture
    // slots a reset undoes; plus the first.
    size_t depth = 1;
    for (size_t pc = 0; pc < p.code.size(); ++pc) {
      const inst& i = p.code[pc];
      const size_t visits = slots_ > 0 ? static_cast<size_t>(p.state_base[pc + 1] - p.state_base[pc]) : 1;
      depth += visits * (i.code == op::reset ? static_cast<size_t>(i.x) + 1 : 2);
    }
    stack_ = depth <= sizeof stack_small_ / sizeof stack_small_[0] ? stack_small_ : (stack_big_.resize(depth), stack_big_.data());
    if (slots_ > 0) {
      caps_[0].resize(n * static_cast<size_t>(slots_));
      caps_[1].resize(n * static_cast<size_t>(slots_));
      work_.resize(static_cast<size_t>(slots_));
    }
  }

  // Runs on s[0, n). full: the match must span the whole input. out: slots_ positions.
  bool run(const char* s, size_t n, bool full, ptrdiff_t* out) {
    const unsigned char* u = reinterpret_cast<const unsigned char*>(s);
    list* cl = &lists_[0];
    list* nl = &lists_[1];
    caps_vector* ccaps = &caps_[0];
    caps_vector* ncaps = &caps_[1];
    cl->clear();
    bool matched = false;
    const bool only_start = full || p_.anchored;
    const bool skip = !full && !p_.can_be_empty;
    for (size_t pos = 0;; ++pos) {
      if (!matched && (pos == 0 || !only_start)) {
        if (cl->count == 0) {
          cl->clear();  // forget what was visited at an earlier position
          if (skip) {
            while (pos < n && !p_.first.has(u[pos])) ++pos;
            if (pos >= n) return false;
          }
        }
        for (int k = 0; k < slots_; ++k) work_[static_cast<size_t>(k)] = -1;
        add(*cl, *ccaps, 0, pos, u, n);
      }
      if (cl->count == 0) {
        if (matched || only_start || pos >= n) break;
        continue;  // nothing started here; try the next position
      }
      nl->clear();
      for (int t = 0; t < cl->count; ++t) {
        const int pc = cl->pcs[t];
        const inst& i = p_.code[static_cast<size_t>(pc)];
        const ptrdiff_t* tc = slots_ ? ccaps->data() + static_cast<size_t>(t) * static_cast<size_t>(slots_) : nullptr;
        bool step = false;
        switch (i.code) {
          case op::match:
            if (full && pos != n) continue;
            matched = true;
            if (slots_ == 0) return true;  // any match will do
            for (int k = 0; k < slots_; ++k) out[k] = tc[k];
            t = cl->count;  // lower-priority threads lose to this one
            continue;
          case op::byte: step = pos < n && u[pos] == i.c; break;
          case op::any: step = pos < n && u[pos] != '\n' && u[pos] != '\r'; break;
          case op::set: step = pos < n && p_.sets[static_cast<size_t>(i.arg)].has(u[pos]); break;
          default: break;
        }
        if (step) {
          for (int k = 0; k < slots_; ++k) work_[static_cast<size_t>(k)] = tc[k];
          add(*nl, *ncaps, pc + 1, pos + 1, u, n);
        }
      }
      list* tl = cl;
      cl = nl;
      nl = tl;
      caps_vector* tcaps = ccaps;
      ccaps = ncaps;
      ncaps = tcaps;
      if (pos >= n) break;
    }
    return matched;
  }

 private:
  struct list {
    int* sparse;
    int* dense;
    int* pcs;
    int size = 0;   // pcs visited this step
    int count = 0;  // threads waiting on a byte (or at match), in priority order
    void init(int* base, size_t n) {
      sparse = base;
      dense = base + n;
      pcs = base + 2 * n;
      for (size_t k = 0; k < n; ++k) sparse[k] = 0;
    }
    void clear() { size = count = 0; }
    bool visit(int pc) {
      const int at = sparse[pc];
      if (at < size && dense[at] == pc) return false;
      sparse[pc] = size;
      dense[size++] = pc;
      return true;
    }
  };

  struct pending {
    int pc;
    int slot;  // >= 0: restore work_[slot] to `old` (undoing a save on the way back)
    ptrdiff_t old;
  };

  // Which thread pc stands for at pos: with captures, a loop's check passes or fails by whether
  // its iteration began at pos, so two threads at pc differing in that are not the same
  // thread. Iterations nest, so the loops that began here are the innermost ones: the state
  // counts the others.
  int state(int pc, size_t pos) const {
    if (slots_ == 0) return pc;
    const size_t at = static_cast<size_t>(pc);
    const int from = p_.chain_at[at], to = p_.chain_at[at + 1];
    int k = from;
    while (k < to && work_[static_cast<size_t>(groups_slots_ + p_.loop_chain[static_cast<size_t>(k)])] != static_cast<ptrdiff_t>(pos)) ++k;
    return p_.state_base[at] + (k - from);
  }

  bool word_at(const unsigned char* u, size_t n, size_t pos) const {
    return pos < n && is_word_byte(u[pos]);
  }

  // Follows jumps, splits, saves and assertions from pc at position pos, depth first in
  // priority order, and queues the threads that wait on input. work_ holds the captures.
  void add(list& l, caps_vector& caps, int pc0, size_t pos, const unsigned char* u, size_t n) {
    size_t top = 0;
    auto push = [&](int pc, int slot, ptrdiff_t old) { stack_[top++] = pending{pc, slot, old}; };
    push(pc0, -1, 0);
    while (top > 0) {
      const pending e = stack_[--top];
      if (e.slot >= 0) {
        work_[static_cast<size_t>(e.slot)] = e.old;
        continue;
      }
      if (!l.visit(state(e.pc, pos))) continue;
      const inst& i = p_.code[static_cast<size_t>(e.pc)];
      switch (i.code) {
        case op::jump: push(i.x, -1, 0); break;
        case op::split:
          push(i.y, -1, 0);
          push(i.x, -1, 0);
          break;
        case op::save:
          if (i.arg < slots_) {
            push(0, i.arg, work_[static_cast<size_t>(i.arg)]);
            work_[static_cast<size_t>(i.arg)] = static_cast<ptrdiff_t>(pos);
          }
          push(e.pc + 1, -1, 0);
          break;
        case op::reset:
          for (int k = i.arg; k < i.arg + i.x && k < slots_; ++k) {
            push(0, k, work_[static_cast<size_t>(k)]);
            work_[static_cast<size_t>(k)] = -1;
          }
          push(e.pc + 1, -1, 0);
          break;
        case op::loop_enter: {
          const int slot = groups_slots_ + i.arg;
          if (slot < slots_) {
            push(0, slot, work_[static_cast<size_t>(slot)]);
            work_[static_cast<size_t>(slot)] = static_cast<ptrdiff_t>(pos);
          }
          push(e.pc + 1, -1, 0);
          break;
        }
        case op::loop_check: {
          // Without captures only whether a match exists is asked, which skipping an empty
          // optional iteration never changes.
          const int slot = groups_slots_ + i.arg;
          if (slot >= slots_ || work_[static_cast<size_t>(slot)] != static_cast<ptrdiff_t>(pos)) push(e.pc + 1, -1, 0);
          break;
        }
        case op::line_begin:
          if (pos == 0) push(e.pc + 1, -1, 0);
          break;
        case op::line_end:
          if (pos == n) push(e.pc + 1, -1, 0);
          break;
        case op::word_edge:
        case op::not_word_edge: {
          const bool edge = (pos > 0 && is_word_byte(u[pos - 1])) != word_at(u, n, pos);
          if (edge == (i.code == op::word_edge)) push(e.pc + 1, -1, 0);
          break;
        }
        default: {
          l.pcs[l.count] = e.pc;
          if (slots_ > 0) {
            ptrdiff_t* dst = caps.data() + static_cast<size_t>(l.count) * static_cast<size_t>(slots_);
            for (int k = 0; k < slots_; ++k) dst[k] = work_[static_cast<size_t>(k)];
          }
          ++l.count;
          break;
        }
      }
    }
  }

  const program& p_;
  int slots_;
  int groups_slots_;  // slots_ less the loop slots
  int small_[6 * 64];
  std::vector<int> big_;
  int* ints_;
  list lists_[2];
  caps_vector caps_[2];
  caps_vector work_;
  pending stack_small_[2 * 64 + 2];
  std::vector<pending> stack_big_;
  pending* stack_;
};

// Whether the program matches, on bit sets (program::bits): no captures, no allocation.
inline bool run_bits(const program& p, const unsigned char* u, size_t n, bool full) {
  auto context = [&](size_t pos) {
    unsigned c = 0;
    if (pos == 0) c |= ctx_start;
    if (pos == n) c |= ctx_end;
    if (pos > 0 && is_word_byte(u[pos - 1])) c |= ctx_word_before;
    if (pos < n && is_word_byte(u[pos])) c |= ctx_word_after;
    return c;
  };
  const bool skip = !full && !p.can_be_empty;
  const size_t states = static_cast<size_t>(p.states);
  uint64_t live = 0;
  for (size_t pos = 0;; ++pos) {
    if (!full || pos == 0) {
      if (live == 0 && skip) {
        while (pos < n && !p.first.has(u[pos])) ++pos;
        if (pos >= n) return false;
      }
      live |= p.start[context(pos)];
    }
    if ((live & p.match_state) && (!full || pos == n)) return true;
    if (pos >= n || (live == 0 && full)) return false;
    uint64_t took = live & p.accept[u[pos]];
    live = 0;
    const uint64_t* follow = p.follow.data() + context(pos + 1) * states;
    while (took) {
      live |= follow[__builtin_ctzll(took)];
      took &= took - 1;
    }
  }
}

}  // namespace regex_impl

PROBE_API regex::regex() { compile("", 0); }

PROBE_API bool regex::compile(const char* pattern, size_t len, std::string* error) {
  pattern_.assign(pattern, len);
  auto prog = std::make_shared<regex_impl::program>();
  valid_ = regex_impl::compile(pattern, len, *prog, error);
  groups_ = prog->groups;
  prog_ = std::move(prog);
  return valid_;
}

PROBE_API bool regex::run(const char* s, size_t n, bool full, span_vector* groups) const {
  if (groups) groups->assign(static_cast<size_t>(groups_) + 1, regex_span{});
  if (!valid_ || !prog_) return false;
  const regex_impl::program& prog = *prog_;
  if (prog.is_literal) return run_literal(s, n, full, groups);
  if (!groups && prog.bits) return regex_impl::run_bits(prog, reinterpret_cast<const unsigned char*>(s), n, full);
  const int slots = groups ? 2 * (prog.groups + 1) + prog.loop_slots : 0;
  regex_impl::machine m(prog, slots);
  std::vector<ptrdiff_t> out(static_cast<size_t>(slots));
  if (!m.run(s, n, full, out.data())) return false;
  for (int g = 0; groups && g <= prog.groups; ++g) {
    const ptrdiff_t b = out[static_cast<size_t>(2 * g)], e = out[static_cast<size_t>(2 * g + 1)];
    if (b >= 0 && e >= 0) (*groups)[static_cast<size_t>(g)] = regex_span{b, e};
  }
  return true;
}

inline bool regex::run_literal(const char* s, size_t n, bool full, span_vector* groups) const {
  const std::string& lit = prog_->literal;
  ptrdiff_t at = -1;
  if (full) {
    if (n == lit.size() && (n == 0 || memcmp(s, lit.data(), n) == 0)) at = 0;
  } else if (lit.empty()) {
    at = 0;
  } else if (n >= lit.size()) {
    // Names are short: find the first byte with memchr, then compare the rest.
    const char first = lit[0];
    const size_t rest = lit.size() - 1;
    const char* p = s;
    const char* last = s + (n - lit.size());
    while (p <= last) {
      p = static_cast<const char*>(memchr(p, first, static_cast<size_t>(last - p) + 1));
      if (!p) break;
      if (memcmp(p + 1, lit.data() + 1, rest) == 0) {
        at = p - s;
        break;
      }
      ++p;
    }
  }
  if (at < 0) return false;
  if (groups) (*groups)[0] = regex_span{at, at + static_cast<ptrdiff_t>(lit.size())};
  return true;
}

}  // namespace detail
PROBE_END_NAMESPACE
