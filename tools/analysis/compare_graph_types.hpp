// The types of compare's graph answers (compare_graph.hpp): op executions, root causes,
// hints and what the analysis needs besides the pairs. Standalone header, plain inline.
#pragma once
#include <stdint.h>

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "compare_part_copy.hpp"

PROBE_BEGIN_NAMESPACE
namespace analysis {

// One op execution.
struct op_node {
  std::string op_key;  // op#occurrence
  std::string op_key_b;  // B's own op#occurrence when pairing renamed it ("": op_key)
  std::string op, type;
  uint64_t seq = 0, parent = 0, seq_b = 0;  // seq_b: its sequence number in B (0: not in B)
  uint64_t lane = 0;                         // its thread lineage (compare_lanes.hpp)
  bool ambiguous = false;                    // its pairing cannot be trusted: it is not judged
  int64_t step = 0;
  std::vector<size_t> inputs, outputs;  // pair indices
  bool in_a = false, in_b = false;      // some tensor of it was recorded in A / in B
  bool cut = false;                     // a run did not record some of it: its dump stopped (a budget)
  bool mismatch = false;                // an output out of tolerance
  bool inner_mismatch = false;          // a nested op execution mismatches
  bool carries = false;                 // an output differs, or passed by statistics alone while an input differs
  bool paired() const { return in_a && in_b; }
};

// The op's key as a user finds it in a dump: B's own for an op only B ran.
inline const std::string& own_op_key(const op_node& n) { return !n.in_a && !n.op_key_b.empty() ? n.op_key_b : n.op_key; }

enum class root_kind : uint8_t {
  op,                // an op whose inputs match while an output does not
  graph_input,       // an input nothing produced differs: the runs were fed different data
  producer_missing,  // an input differs and its producer was not dumped in either run
};

inline const char* root_kind_name(root_kind k) {
  switch (k) {
    case root_kind::graph_input: return "graph_input";
    case root_kind::producer_missing: return "producer_missing";
    default: return "op";
  }
}

struct root_cause {
  root_kind kind = root_kind::op;
  bool is_input = false;  // kind != op: a differing input (pair `input`) rather than an op
  size_t node = 0;        // the op (or, for an input, the op consuming it)
  size_t input = 0;       // pair index, for is_input
  std::vector<size_t> reaches;  // nodes, in sequence order
  double severity = 0;    // the largest error relative to the tensor's scale (inf: NaN, shape)
  bool rounding = false;  // every failure of it is rounding-level (compare_findings.hpp)
};

enum class hint_kind : uint8_t {
  outside_op,         // written by code outside any op between producer and consumer
  outside_step,       // the producer was recorded at another step than --step
  unpaired_producer,  // the producer ran in one run only
  unlinked_copy,      // no producer, but an earlier output's bytes (or values: cast, in part) in both runs: a copy
};

inline const char* hint_kind_name(hint_kind k) {
  switch (k) {
    case hint_kind::outside_step: return "outside_step";
    case hint_kind::unpaired_producer: return "unpaired_producer";
    case hint_kind::unlinked_copy: return "unlinked_copy";
    default: return "outside_op";
  }
}

// One place (producer op, consumer op, slot) across its occurrences and steps.
struct graph_hint {
  hint_kind kind = hint_kind::outside_op;
  std::string producer_op, consumer_op, slot;  // op names: the place
  std::string producer_key, last_op;           // of the first occurrence
  int64_t producer_step = 0;                   // outside_step: where the producer is
  std::string only_in;                         // unpaired_producer: "A" or "B"
  std::string converted;                       // unlinked_copy of values cast to another dtype: "float32 -> float64"
  part_relation part = part_relation::none;    // unlinked_copy of part of the values, or of them among others
  std::string with_key;                        // part combined: the other tensor's key (an output or an input)
  std::vector<size_t> inputs;                  // pair indices, every occurrence
  size_t differing = 0;                        // of them, how many differ
  size_t carried = 0;  // of the rest, how many differ as the output whose bytes the code overwrote did
  std::vector<size_t> reaches;
};

struct graph_answers {
  bool available = false;  // false for folders of plain .npy files
  std::vector<op_node> nodes;  // sequence order
  long first_divergence = -1;  // node index
  std::vector<root_cause> roots;
  std::vector<graph_hint> hints;
  std::vector<size_t> unexplained;  // mismatching nodes no root or hint reaches
  // Ops whose output fails while their inputs pass, but carry (within tolerance) the difference
  // of an earlier root: {node, root index}. Not roots: they grow an error they were handed.
  std::vector<std::pair<size_t, size_t>> regrown;
  // The same for a difference that starts at a hint (written outside any op): {node, hint index}.
  std::vector<std::pair<size_t, size_t>> regrown_by_hint;
  uint64_t visits = 0;  // nodes visited while following errors: grows with the graph, not its square
  uint64_t cast_checks = 0;  // outputs whose statistics were held against an input's (cast copies)
  uint64_t part_checks = 0;  // outputs whose values were read against an input's (slices, gathers)
  uint64_t part_values_read = 0;  // elements those checks read
};

// What the graph needs besides the pairs: output keys --step left out (key -> step).
struct graph_context {
  const std::unordered_map<std::string, int64_t>* outside_step = nullptr;
  // Reads tensors' values for the lookup of copies of part of an output (none: not looked for),
  // at most `value_budget` elements in all.
  open_side_values open_values;
  uint64_t value_budget = 0;
};

}  // namespace analysis
PROBE_END_NAMESPACE
