// Pairing op executions by computation when threads run copies of one network.
//
// A key's occurrence counts executions of a name over all threads, in the order they began:
// an engine serving two requests on two threads numbers request 0's ops #0 in one run and #1
// in the next when the threads start the other way round, and pairing by key would compare
// request 0 with request 1. So before tensors are paired by key, the ops of B are renamed to
// the key of the same computation in A:
// - each op belongs to a lane, its thread lineage (manifest "lane"; old dumps: "thread"), and
//   has an occurrence in it ("lane_occurrence"; old dumps: counted here), which no other
//   thread's scheduling changes;
// - lanes pair within a class (the name of the lane's first op): one lane on each side pairs
//   as it is; several pair by their source inputs (inputs no op produced: graph inputs and
//   weights, by content hash) and their ops' attributes (a loader given its request's id),
//   equal with equal; what is left pairs in start order when the
//   choice cannot change a verdict (one side's leftovers all read the same sources), and is
//   otherwise ambiguous: those ops keep their keys, are marked, and a note says so, so that
//   no root cause is blamed on a pairing that cannot be trusted;
// - ops of paired lanes pair by (name, lane occurrence); the others by key order, as before.
// Pairing by key is checked first: when every source input it pairs reads the same content in
// both runs (or none has a hash) and every op it pairs was given the same attributes, it stays; and lane pairing replaces it only when it pairs no
// more differing sources. A single-threaded run pairs exactly as by key. Standalone header,
// plain inline.
#pragma once
#include <stdint.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "dump_manifest.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {
namespace lanes_impl {

// The length of the op part ("embed#3") of a tensor key ("embed#3/in/x"): the first "#<digits>"
// followed by "/in/" or "/out/" (names may hold '#', slots '/'); npos when there is none.
inline size_t op_part_length(const std::string& key) {
  for (size_t h = key.find('#'); h != std::string::npos; h = key.find('#', h + 1)) {
    size_t i = h + 1;
    while (i < key.size() && key[i] >= '0' && key[i] <= '9') ++i;
    if (i == h + 1) continue;
    if (key.compare(i, 4, "/in/") == 0 || key.compare(i, 5, "/out/") == 0) return i;
  }
  return std::string::npos;
}

// What an input read, as text for matching executions across runs: "slot=" and, for each
// byte range an op wrote, its writer (as `writer` names the producer's key) "@at+bytes" (with
// "/offset" in the input when asked) ";", or "#hash" when no op wrote it.
template <class Writer>
inline std::string read_signature(const dump_tensor& t, Writer writer, bool with_offset) {
  std::string s = t.slot + "=";
  // bytes no op wrote: where they lie in an enclosing op's input, else their content
  if (t.producers.empty() && !t.within.empty()) s += "<" + writer(t.within) + "@" + std::to_string(t.within_at) + ";";
  else if (t.producers.empty()) s += "#" + t.hash;
  for (const dump_producer& p : t.producers) {
    s += writer(p.key) + "@" + std::to_string(p.at) + "+" + std::to_string(p.bytes);
    if (with_offset) s += "/" + std::to_string(p.offset);
    s += ";";
  }
  return s;
}

struct op_exec {
  std::string key, name;  // "embed#3", "embed"
  uint64_t occurrence = 0, lane = 0, lane_occurrence = 0, seq = 0;
  bool known = false;  // lane_occurrence came from the manifest
};

struct lane_info {
  uint64_t id = 0, first_seq = UINT64_MAX;
  std::string first_op;
  std::map<std::string, size_t> ops;  // "name#lane occurrence" -> op_exec index
  // "name#lane occurrence/slot" of each input no op produced -> its content hash
  std::map<std::string, std::string> sources;
  bool unhashed = false;  // a source without a hash: the lane equals no other
  bool ambiguous = false;
  long partner = -1;
};

struct run_lanes {
  std::unordered_map<std::string, std::string> source_hash;  // tensor key of a source input -> its hash
  std::unordered_map<std::string, std::string> attrs_of;     // op key -> its attributes as text
  std::vector<op_exec> ops;
  std::unordered_map<std::string, size_t> op_of;  // op key -> ops index
  std::vector<lane_info> lanes;                    // start order
};

// The name attributes take among a lane's sources (no slot name holds a newline).
constexpr const char* k_attrs_slot = "\nattrs";

inline std::string lane_name(const op_exec& o) { return o.name + "#" + std::to_string(o.lane_occurrence); }

// An input no op produced: a graph input or a weight.
inline bool is_source(const dump_tensor& t) {
  return t.is_input && t.producers.empty() && t.producer.empty() && !t.implicit;
}

// What pairing by key is checked with: each source input's hash and each op's attributes
// (of ops that have tensors).
inline void collect_sources(const dump_run& run, run_lanes* r) {
  for (const dump_tensor& t : run.tensors)
    if (is_source(t)) r->source_hash.emplace(t.key, t.hash);
  if (run.attrs.empty()) return;
  std::unordered_set<std::string> has_tensors;
  for (const dump_tensor& t : run.tensors) has_tensors.insert(t.op_key());
  for (const dump_attrs& x : run.attrs)
    if (has_tensors.count(x.key)) r->attrs_of.emplace(x.key, attrs_text(x.attrs));
}

// The ops and lanes of a run, into *r whose sources collect_sources has filled.
inline void collect_lanes(const dump_run& run, run_lanes* out) {
  run_lanes& r = *out;
  bool all_known = true;
  for (const dump_tensor& t : run.tensors) {
    const std::string k = t.op_key();
    auto it = r.op_of.find(k);
    if (it == r.op_of.end()) {
      it = r.op_of.emplace(k, r.ops.size()).first;
      op_exec o;
      o.key = k;
      o.name = t.op;
      o.occurrence = t.occurrence;
      o.lane = t.lane;
      o.lane_occurrence = t.lane_occurrence;
      o.known = t.has_lane_occurrence;
      o.seq = t.seq;
      all_known = all_known && o.known;
      r.ops.push_back(std::move(o));
    }
  }
  // Old dumps: an op's rank among its lane's executions of its name, by run-wide occurrence.
  if (!all_known) {
    std::vector<size_t> order(r.ops.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return r.ops[x].occurrence < r.ops[y].occurrence; });
    std::map<std::pair<uint64_t, std::string>, uint64_t> next;
    for (size_t i : order) r.ops[i].lane_occurrence = next[{r.ops[i].lane, r.ops[i].name}]++;
  }
  std::map<uint64_t, size_t> lane_of;
  for (size_t i = 0; i < r.ops.size(); ++i) {
    const op_exec& o = r.ops[i];
    auto it = lane_of.find(o.lane);
    if (it == lane_of.end()) {
      it = lane_of.emplace(o.lane, r.lanes.size()).first;
      r.lanes.emplace_back();
      r.lanes.back().id = o.lane;
    }
    lane_info& l = r.lanes[it->second];
    if (o.seq < l.first_seq) {
      l.first_seq = o.seq;
      l.first_op = o.name;
    }
    l.ops.emplace(lane_name(o), i);
  }
  for (const dump_tensor& t : run.tensors) {
    if (!is_source(t)) continue;
    const op_exec& o = r.ops[r.op_of.at(t.op_key())];
    lane_info& l = r.lanes[lane_of.at(o.lane)];
    l.sources[lane_name(o) + "/" + t.slot] = t.hash;
    l.unhashed = l.unhashed || t.hash.empty();
  }
  // Attributes say which computation an op is as much as its source inputs do (a request's
  // loader given its request's id): "name#<lane occurrence>/" + k_attrs_slot.
  for (const dump_attrs& x : run.attrs) {
    auto it = r.op_of.find(x.key);
    if (it == r.op_of.end()) continue;
    const op_exec& o = r.ops[it->second];
    r.lanes[lane_of.at(o.lane)].sources[lane_name(o) + "/" + k_attrs_slot] = attrs_text(x.attrs);
  }
  std::sort(r.lanes.begin(), r.lanes.end(), [](const lane_info& x, const lane_info& y) { return x.first_seq < y.first_seq; });
}

inline bool same_sources(const lane_info& x, const lane_info& y) {
  return !x.unhashed && !y.unhashed && x.sources == y.sources;
}

// How many different source sets the lanes read (a lane without hashes counts as its own).
inline size_t distinct_sources(const std::vector<lane_info*>& lanes) {
  std::vector<const lane_info*> seen;
  size_t n = 0;
  for (const lane_info* l : lanes) {
    bool found = false;
    for (const lane_info* s : seen) found = found || same_sources(*s, *l);
    if (!found) {
      ++n;
      seen.push_back(l);
    }
  }
  return n;
}

// The first source (as "input x of embed") whose content differs among the lanes.
inline std::string differing_source(const std::vector<lane_info*>& lanes) {
  std::set<std::string> names;
  for (const lane_info* l : lanes)
    for (const auto& s : l->sources) names.insert(s.first);
  for (const std::string& n : names) {
    std::set<std::string> values;
    for (const lane_info* l : lanes) {
      auto it = l->sources.find(n);
      values.insert(it == l->sources.end() ? std::string("\n") : it->second);
    }
    if (values.size() > 1 || values.count("")) {
      // n is "name#<lane occurrence>/slot": the first '#' followed by digits and '/' ends the name
      for (size_t h = n.find('#'); h != std::string::npos; h = n.find('#', h + 1)) {
        size_t i = h + 1;
        while (i < n.size() && n[i] >= '0' && n[i] <= '9') ++i;
        if (i > h + 1 && i < n.size() && n[i] == '/')
          return n.compare(i + 1, std::string::npos, k_attrs_slot) == 0 ? "the attributes of " + n.substr(0, h)
                                                                         : "input " + n.substr(i + 1) + " of " + n.substr(0, h);
      }
      return "input " + n;
    }
  }
  return "their inputs";
}

// Pairs the lanes of one class (indices into each run's lanes, start order): sets partners,
// or marks the lanes ambiguous and says so in *notes.
inline void pair_class(const std::string& cls, run_lanes* ra, run_lanes* rb, const std::vector<size_t>& la,
                       const std::vector<size_t>& lb, std::vector<std::string>* notes, const std::string& prefix) {
  auto link = [&](size_t a, size_t b) {
    ra->lanes[a].partner = static_cast<long>(b);
    rb->lanes[b].partner = static_cast<long>(a);
  };
  if (la.size() == 1 && lb.size() == 1) {
    link(la[0], lb[0]);
    return;
  }
  for (size_t b : lb)
    for (size_t a : la)
      if (ra->lanes[a].partner < 0 && same_sources(ra->lanes[a], rb->lanes[b])) {
        link(a, b);
        break;
      }
  std::vector<lane_info*> left_a, left_b;
  for (size_t a : la)
    if (ra->lanes[a].partner < 0) left_a.push_back(&ra->lanes[a]);
  for (size_t b : lb)
    if (rb->lanes[b].partner < 0) left_b.push_back(&rb->lanes[b]);
  if (left_a.empty() || left_b.empty()) return;
  // When one side's leftovers all read the same sources, every way of pairing them compares
  // the same data: start order is as good as any.
  if (distinct_sources(left_a) <= 1 || distinct_sources(left_b) <= 1) {
    for (size_t i = 0; i < left_a.size() && i < left_b.size(); ++i)
      link(static_cast<size_t>(left_a[i] - ra->lanes.data()), static_cast<size_t>(left_b[i] - rb->lanes.data()));
    return;
  }
  for (lane_info* l : left_a) l->ambiguous = true;
  for (lane_info* l : left_b) l->ambiguous = true;
  std::vector<lane_info*> all = left_a;
  all.insert(all.end(), left_b.begin(), left_b.end());
  notes->push_back(prefix + "pairing ambiguous: " + std::to_string(left_a.size()) + " threads of A and " +
                   std::to_string(left_b.size()) + " of B begin with op " + ::probe::detail::printable(cls) +
                   " and differ in " + ::probe::detail::printable(differing_source(all)) +
                   ", none as in a thread of the other run: which is which cannot be told, so their ops are "
                   "paired in the order they began and not judged (no root cause, hint or first divergence "
                   "among them)");
}

// A key with its op part renamed by `to` (old op key -> new), or unchanged.
inline std::string renamed(const std::string& key, const std::unordered_map<std::string, std::string>& to) {
  const size_t n = op_part_length(key);
  if (n == std::string::npos) return key;
  auto it = to.find(key.substr(0, n));
  return it == to.end() ? key : it->second + key.substr(n);
}

// Gives run b's op executions the keys `to` names (old op key -> new), everywhere a key
// appears: tensors, producers, stale producers, attributes. All at once, so that keys may swap.
inline void rename_ops(dump_run* b, const std::unordered_map<std::string, std::string>& to) {
  auto rename_op = [&](const std::string& op_key) {
    auto it = to.find(op_key);
    return it == to.end() ? op_key : it->second;
  };
  for (dump_tensor& t : b->tensors) {
    const std::string old = t.op_key(), now = rename_op(old);
    if (now != old) {
      if (t.own_key.empty()) t.own_key = t.key;
      t.key = t.key.compare(0, old.size(), old) == 0 ? now + t.key.substr(old.size()) : renamed(t.key, to);
      t.occurrence = std::stoull(now.substr(now.rfind('#') + 1));
    }
    t.producer = renamed(t.producer, to);
    for (dump_producer& p : t.producers) p.key = renamed(p.key, to);
    t.stale_producer = renamed(t.stale_producer, to);
    t.within = renamed(t.within, to);
  }
  for (dump_attrs& x : b->attrs) x.key = rename_op(x.key);
}

}  // namespace lanes_impl

// Renames B's op executions to the key of the same computation in A (see the top of this
// file) and marks the tensors of lanes that cannot be paired. Notes say what was done.
inline void pair_lanes(dump_run* a, dump_run* b, std::vector<std::string>* notes, const std::string& prefix = "") {
  using namespace lanes_impl;
  run_lanes ra, rb;
  collect_sources(*a, &ra);
  collect_sources(*b, &rb);
  // Source inputs (no producer) whose content differs between the runs when B's ops take the
  // keys `to` gives them (none: their own).
  auto disagreements = [&](const std::unordered_map<std::string, std::string>* to) {
    size_t n = 0;
    for (const auto& s : rb.source_hash) {
      auto it = ra.source_hash.find(to ? renamed(s.first, *to) : s.first);
      n += it != ra.source_hash.end() && !it->second.empty() && !s.second.empty() && it->second != s.second;
    }
    for (const auto& x : rb.attrs_of) {
      std::string key = x.first;
      if (to) {
        auto moved = to->find(key);
        if (moved != to->end()) key = moved->second;
      }
      auto it = ra.attrs_of.find(key);
      n += it != ra.attrs_of.end() && it->second != x.second;
    }
    return n;
  };
  // Pairing by key that reads the same sources everywhere is checked by content: it stays (a
  // pool whose workers take tasks in a fixed order pairs by key, whichever worker ran which).
  const size_t by_key = disagreements(nullptr);
  if (by_key == 0) return;
  collect_lanes(*a, &ra);
  collect_lanes(*b, &rb);
  std::vector<std::string> lane_notes;
  std::map<std::string, std::pair<std::vector<size_t>, std::vector<size_t>>> classes;
  for (size_t i = 0; i < ra.lanes.size(); ++i) classes[ra.lanes[i].first_op].first.push_back(i);
  for (size_t i = 0; i < rb.lanes.size(); ++i) classes[rb.lanes[i].first_op].second.push_back(i);
  for (const auto& c : classes)
    if (!c.second.first.empty() && !c.second.second.empty())
      pair_class(c.first, &ra, &rb, c.second.first, c.second.second, &lane_notes, prefix);

  // B op key -> A op key: paired lanes by (name, lane occurrence), the rest by key order
  std::unordered_map<std::string, std::string> to;
  std::set<std::string> taken;  // A op keys given to a B op
  for (const lane_info& lb : rb.lanes) {
    if (lb.partner < 0) continue;
    const lane_info& la = ra.lanes[static_cast<size_t>(lb.partner)];
    for (const auto& o : lb.ops) {
      auto it = la.ops.find(o.first);
      if (it == la.ops.end()) continue;
      to[rb.ops[o.second].key] = ra.ops[it->second].key;
      taken.insert(ra.ops[it->second].key);
    }
  }
  std::map<std::string, std::pair<std::vector<const op_exec*>, std::vector<const op_exec*>>> rest;  // by name
  for (const op_exec& o : ra.ops)
    if (!taken.count(o.key)) rest[o.name].first.push_back(&o);
  for (const op_exec& o : rb.ops)
    if (!to.count(o.key)) rest[o.name].second.push_back(&o);
  std::unordered_map<std::string, uint64_t> fresh;  // per name: above every occurrence on either side
  for (const run_lanes* side : {&ra, &rb})
    for (const op_exec& o : side->ops) fresh[o.name] = std::max(fresh[o.name], o.occurrence + 1);
  for (auto& r : rest) {
    auto by_occurrence = [](const op_exec* x, const op_exec* y) { return x->occurrence < y->occurrence; };
    std::sort(r.second.first.begin(), r.second.first.end(), by_occurrence);
    std::sort(r.second.second.begin(), r.second.second.end(), by_occurrence);
    const std::vector<const op_exec*>& xa = r.second.first;
    const std::vector<const op_exec*>& xb = r.second.second;
    for (size_t i = 0; i < xb.size(); ++i) {
      if (i < xa.size()) {
        to[xb[i]->key] = xa[i]->key;
        continue;
      }
      // one more execution in B than in A: its own key unless an A op has it
      const bool free = !ra.op_of.count(xb[i]->key);
      to[xb[i]->key] = free ? xb[i]->key : r.first + "#" + std::to_string(fresh[r.first]++);
    }
  }

  // Lanes are a guess at what a computation is; a guess that reads more different sources
  // than pairing by key is worse, and key pairing stays.
  if (disagreements(&to) > by_key) return;
  for (std::string& n : lane_notes) notes->push_back(std::move(n));
  // Listed in the order B's ops began (its manifest's order depends on which thread's records
  // were written first): "B's embed#0 as A's embed#1".
  std::vector<const op_exec*> by_start;
  for (const op_exec& o : rb.ops) by_start.push_back(&o);
  std::stable_sort(by_start.begin(), by_start.end(), [](const op_exec* x, const op_exec* y) { return x->seq < y->seq; });
  std::vector<std::string> moved;
  for (const op_exec* o : by_start) {
    const std::string& k = to.at(o->key);
    if (k != o->key) moved.push_back("B's " + ::probe::detail::printable(o->key) + " as A's " + ::probe::detail::printable(k));
  }
  if (!moved.empty()) {
    std::string list;
    for (size_t i = 0; i < moved.size() && i < 3; ++i) list += (i ? ", " : "") + moved[i];
    if (moved.size() > 3) list += ", ...";
    notes->push_back(prefix + "threads began their ops in another order in B: " + std::to_string(moved.size()) +
                     " op executions of B are compared under the key of the same computation in A (" + list + ")");
    rename_ops(b, to);
  }
  for (const auto& side : {std::make_pair(&ra, a), std::make_pair(&rb, b)}) {
    std::set<uint64_t> ambiguous;
    for (const lane_info& l : side.first->lanes)
      if (l.ambiguous) ambiguous.insert(l.id);
    if (ambiguous.empty()) continue;
    for (dump_tensor& t : side.second->tensors) t.ambiguous = ambiguous.count(t.lane) > 0;
  }
}

}  // namespace analysis
PROBE_END_NAMESPACE
