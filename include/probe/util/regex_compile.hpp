// The regex compiler: emits the matcher's program for a syntax tree (regex_parse.hpp), and
// precomputes what lets matching skip work: a plain-string pattern, a start anchor, the bytes
// a match can begin with, and the bit-set tables of small programs.
#pragma once
#include <string>
#include <vector>

#include "regex_parse.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {
namespace regex_impl {

// Emits the program for a syntax tree.
class emitter {
 public:
  emitter(const std::vector<node>& nodes, program& prog) : nodes_(nodes), prog_(prog) {}
  bool too_large = false;

  void emit(int id) {
    if (too_large) return;
    if (static_cast<int>(prog_.code.size()) > max_program) {
      too_large = true;
      return;
    }
    const node& n = nodes_[static_cast<size_t>(id)];
    switch (n.kind) {
      case node_kind::empty: break;
      case node_kind::byte: put(inst{op::byte, n.c}); break;
      case node_kind::any: put(inst{op::any}); break;
      case node_kind::set: {
        inst i{op::set};
        i.arg = n.set;
        put(i);
        break;
      }
      case node_kind::assertion: put(inst{n.assert_op}); break;
      case node_kind::group:
        if (n.group >= 0) put(save(2 * n.group));
        emit(n.kids[0]);
        if (n.group >= 0) put(save(2 * n.group + 1));
        break;
      case node_kind::concat:
        for (int k : n.kids) emit(k);
        break;
      case node_kind::alt: {
        std::vector<int> jumps;
        for (size_t k = 0; k < n.kids.size(); ++k) {
          if (k + 1 < n.kids.size()) {
            const int s = put(inst{op::split});
            prog_.code[static_cast<size_t>(s)].x = here();
            emit(n.kids[k]);
            jumps.push_back(put(inst{op::jump}));
            prog_.code[static_cast<size_t>(s)].y = here();
          } else {
            emit(n.kids[k]);
          }
        }
        for (int j : jumps) prog_.code[static_cast<size_t>(j)].x = here();
        break;
      }
      case node_kind::repeat: repeat(n); break;
    }
  }

  int here() const { return static_cast<int>(prog_.code.size()); }
  int put(inst i) {
    prog_.code.push_back(i);
    prog_.chain_at.push_back(static_cast<int>(prog_.loop_chain.size()));
    // Past max_capture_cells states the pattern is refused anyway: stop growing the table.
    if (prog_.loop_chain.size() + open_loops_.size() > max_capture_cells) too_large = true;
    else prog_.loop_chain.insert(prog_.loop_chain.end(), open_loops_.begin(), open_loops_.end());
    return here() - 1;
  }
  // Closes the loop tables once the last instruction is in.
  void finish() {
    prog_.chain_at.push_back(static_cast<int>(prog_.loop_chain.size()));
    prog_.state_base.assign(prog_.code.size() + 1, 0);
    for (size_t pc = 0; pc < prog_.code.size(); ++pc)
      prog_.state_base[pc + 1] = prog_.state_base[pc] + 1 + (prog_.chain_at[pc + 1] - prog_.chain_at[pc]);
  }
  static inst save(int slot) {
    inst i{op::save};
    i.arg = slot;
    return i;
  }

 private:
  // A split whose preferred branch is the next instruction (greedy) or `other` (lazy).
  void split_to(int s, int next, int other, bool greedy) {
    prog_.code[static_cast<size_t>(s)].x = greedy ? next : other;
    prog_.code[static_cast<size_t>(s)].y = greedy ? other : next;
  }

  // Lowest and highest capture group inside a subtree (lo > hi when none).
  void group_range(int id, int& lo, int& hi) const {
    const node& n = nodes_[static_cast<size_t>(id)];
    if (n.kind == node_kind::group && n.group >= 0) {
      lo = n.group < lo ? n.group : lo;
      hi = n.group > hi ? n.group : hi;
    }
    for (int k : n.kids) group_range(k, lo, hi);
  }

  // One iteration of a loop body; ECMAScript clears the body's groups as each one begins.
  // `loop_slot` >= 0: an optional iteration whose body can match empty, which ECMAScript
  // rejects when it consumes nothing (x(?:|y)? on "xy" takes the y). The instructions between
  // loop_enter and loop_check are inside the loop (program::loop_chain).
  void iteration(const node& n, int loop_slot = -1) {
    int lo = 1 << 30, hi = -1;
    group_range(n.kids[0], lo, hi);
    if (lo <= hi) {
      inst r{op::reset};
      r.arg = 2 * lo;
      r.x = 2 * (hi - lo + 1);
      put(r);
    }
    if (loop_slot >= 0) {
      inst e{op::loop_enter};
      e.arg = loop_slot;
      put(e);
      open_loops_.push_back(loop_slot);
    }
    emit(n.kids[0]);
    if (loop_slot >= 0) {
      inst c{op::loop_check};
      c.arg = loop_slot;
      put(c);
      open_loops_.pop_back();
    }
  }

  void repeat(const node& n) {
    for (int k = 0; k < n.min; ++k) iteration(n);
    // Iterations past the minimum that can match empty get a position slot, checked at their
    // end: one slot per loop, shared by its unrolled copies, which never overlap.
    int loop_slot = -1;
    if ((n.max < 0 || n.max > n.min) && can_match_empty(n.kids[0])) loop_slot = prog_.loop_slots++;
    if (n.max < 0) {
      const int s = put(inst{op::split});
      iteration(n, loop_slot);
      inst back{op::jump};
      back.x = s;
      put(back);
      split_to(s, s + 1, here(), n.greedy);
      return;
    }
    std::vector<int> splits;
    for (int k = n.min; k < n.max && !too_large; ++k) {
      splits.push_back(put(inst{op::split}));
      iteration(n, loop_slot);
    }
    for (int s : splits) split_to(s, s + 1, here(), n.greedy);
  }

  bool can_match_empty(int id) const;

  const std::vector<node>& nodes_;
  program& prog_;
  std::vector<int> open_loops_;  // loop slots of the iterations being emitted, outermost first
};

// What the matcher can use to skip work: a plain-string pattern, a start anchor, the bytes a
// match can begin with. `empty` is whether the node can match without consuming.
inline void analyze(const std::vector<node>& nodes, const program& prog, int id, byte_set& first, bool& empty) {
  const node& n = nodes[static_cast<size_t>(id)];
  switch (n.kind) {
    case node_kind::empty: case node_kind::assertion: empty = true; break;
    case node_kind::byte: first.add(n.c); empty = false; break;
    case node_kind::any: {
      byte_set s;
      s.invert();
      first.add(s);
      empty = false;
      break;
    }
    case node_kind::set: first.add(prog.sets[static_cast<size_t>(n.set)]); empty = false; break;
    case node_kind::group: analyze(nodes, prog, n.kids[0], first, empty); break;
    case node_kind::repeat:
      analyze(nodes, prog, n.kids[0], first, empty);
      if (n.min == 0) empty = true;
      break;
    case node_kind::alt: {
      empty = false;
      for (int k : n.kids) {
        bool e = false;
        analyze(nodes, prog, k, first, e);
        empty = empty || e;
      }
      break;
    }
    case node_kind::concat:
      empty = true;
      for (int k : n.kids) {
        bool e = false;
        analyze(nodes, prog, k, first, e);
        if (!e) {
          empty = false;
          break;
        }
      }
      break;
  }
}

inline bool emitter::can_match_empty(int id) const {
  byte_set first;
  bool empty = false;
  analyze(nodes_, prog_, id, first, empty);
  return empty;
}

inline bool starts_anchored(const std::vector<node>& nodes, int id) {
  const node& n = nodes[static_cast<size_t>(id)];
  switch (n.kind) {
    case node_kind::assertion: return n.assert_op == op::line_begin;
    case node_kind::group: return starts_anchored(nodes, n.kids[0]);
    case node_kind::concat: return !n.kids.empty() && starts_anchored(nodes, n.kids[0]);
    case node_kind::alt:
      for (int k : n.kids)
        if (!starts_anchored(nodes, k)) return false;
      return true;
    default: return false;
  }
}

inline bool literal_of(const std::vector<node>& nodes, int id, std::string& out) {
  const node& n = nodes[static_cast<size_t>(id)];
  if (n.kind == node_kind::byte) {
    out += static_cast<char>(n.c);
    return true;
  }
  if (n.kind == node_kind::concat) {
    for (int k : n.kids)
      if (!literal_of(nodes, k, out)) return false;
    return true;
  }
  return n.kind == node_kind::empty;
}

// The bit-set tables (program::bits), when the program is small enough.
inline void build_bit_tables(program& prog) {
  const size_t n = prog.code.size();
  std::vector<int> state_of(n, -1);
  std::vector<int> pc_of;
  for (size_t pc = 0; pc < n; ++pc) {
    const op c = prog.code[pc].code;
    if (c == op::byte || c == op::any || c == op::set || c == op::match) {
      state_of[pc] = static_cast<int>(pc_of.size());
      pc_of.push_back(static_cast<int>(pc));
    }
  }
  if (pc_of.size() > 64) return;
  prog.states = static_cast<int>(pc_of.size());
  for (int st = 0; st < prog.states; ++st) {
    const inst& i = prog.code[static_cast<size_t>(pc_of[static_cast<size_t>(st)])];
    const uint64_t bit = uint64_t(1) << st;
    if (i.code == op::match) prog.match_state = bit;
    for (unsigned c = 0; c < 256; ++c) {
      const bool takes = (i.code == op::byte && i.c == c) || (i.code == op::any && c != '\n' && c != '\r') ||
                         (i.code == op::set && prog.sets[static_cast<size_t>(i.arg)].has(c));
      if (takes) prog.accept[c] |= bit;
    }
  }
  // The states reachable from pc without consuming, in context ctx.
  std::vector<char> seen(n);
  std::vector<int> stack;
  auto closure = [&](int pc0, unsigned ctx) {
    uint64_t mask = 0;
    for (char& v : seen) v = 0;
    stack.assign(1, pc0);
    while (!stack.empty()) {
      const int pc = stack.back();
      stack.pop_back();
      if (seen[static_cast<size_t>(pc)]) continue;
      seen[static_cast<size_t>(pc)] = 1;
      const inst& i = prog.code[static_cast<size_t>(pc)];
      const bool word_edge = ((ctx & ctx_word_before) != 0) != ((ctx & ctx_word_after) != 0);
      switch (i.code) {
        case op::jump: stack.push_back(i.x); break;
        case op::split: stack.push_back(i.x); stack.push_back(i.y); break;
        case op::save: case op::reset: case op::loop_enter: case op::loop_check: stack.push_back(pc + 1); break;
        case op::line_begin: if (ctx & ctx_start) stack.push_back(pc + 1); break;
        case op::line_end: if (ctx & ctx_end) stack.push_back(pc + 1); break;
        case op::word_edge: if (word_edge) stack.push_back(pc + 1); break;
        case op::not_word_edge: if (!word_edge) stack.push_back(pc + 1); break;
        default: mask |= uint64_t(1) << state_of[static_cast<size_t>(pc)]; break;
      }
    }
    return mask;
  };
  prog.follow.assign(16 * pc_of.size(), 0);
  for (unsigned ctx = 0; ctx < 16; ++ctx) {
    prog.start[ctx] = closure(0, ctx);
    for (size_t st = 0; st < pc_of.size(); ++st)
      if (prog.code[static_cast<size_t>(pc_of[st])].code != op::match)
        prog.follow[ctx * pc_of.size() + st] = closure(pc_of[st] + 1, ctx);
  }
  prog.bits = true;
}

// Compiles `pattern` into `prog`; on failure returns false and sets `error` to
// "bad regex 'x(': missing ')' at 2" (the offset is in bytes from the pattern's start).
inline bool compile(const char* pattern, size_t len, program& prog, std::string* error) {
  prog = program{};  // dependent: completed only when used
  parser ps(pattern, len, prog);
  const int root = ps.parse();
  std::string why = ps.error();
  size_t at = ps.error_pos();
  if (root >= 0) {
    emitter em(ps.nodes, prog);
    em.put(emitter::save(0));
    em.emit(root);
    em.put(emitter::save(1));
    em.put(inst{op::match});
    em.finish();
    // Matching with captures keeps every slot for every state: bounded here, so that memory
    // stays within max_capture_cells whatever the pattern.
    const size_t states = static_cast<size_t>(prog.state_base.back());
    const size_t cells = states * static_cast<size_t>(2 * (prog.groups + 1) + prog.loop_slots);
    if (em.too_large || static_cast<int>(prog.code.size()) > max_program) {
      why = "pattern too large";
      at = 0;
    } else if (cells > max_capture_cells && states > 2 * prog.code.size()) {
      why = "pattern too large: loops that can match empty nested too deeply";
      at = 0;
    } else if (cells > max_capture_cells) {
      why = "pattern too large for its " + std::to_string(prog.groups) + " capture groups (use (?: ) where nothing is captured)";
      at = 0;
    } else {
      analyze(ps.nodes, prog, root, prog.first, prog.can_be_empty);
      build_bit_tables(prog);
      prog.anchored = starts_anchored(ps.nodes, root);
      std::string lit;
      if (prog.groups == 0 && literal_of(ps.nodes, root, lit)) {
        prog.is_literal = true;
        prog.literal = lit;
      }
      return true;
    }
  }
  if (error) {
    *error = "bad regex '";
    error->append(pattern, len);
    *error += "': ";
    *error += why;
    *error += " at ";
    *error += std::to_string(at);
  }
  prog = program{};
  return false;
}

}  // namespace regex_impl
}  // namespace detail
PROBE_END_NAMESPACE
