// A tiny graph compiler for the engine's MLP block (--optimize): the block is built as a
// graph, rewritten by a pipeline of passes (constant folding, dead-code removal, fusion, a
// weight layout change) and then run node by node. Each layer's graph is one probe module
// and each pass a probe pass, so --probe_dump_pass_re=.* shows the IR after every pass;
// its ops run inside the module (probe::ir_run), so their records name the IR they came from.
// --opt-bug plants a fusion bug: the fused MatMul+bias+GELU forgets its bias.
#pragma once
#include <probe/probe.hpp>

#include <stdlib.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "kernels.hpp"

namespace engine {

struct ir_node {
  std::string name, op;
  std::vector<std::string> inputs;
  std::string attrs;  // "value=0.5", "layout=transposed"
};

struct ir_graph {
  std::vector<ir_node> nodes;
  std::string text() const {
    std::string s;
    for (const ir_node& n : nodes) {
      s += "%" + n.name + " = " + n.op;
      if (!n.inputs.empty()) {
        s += "(";
        for (size_t i = 0; i < n.inputs.size(); ++i) s += (i ? ", %" : "%") + n.inputs[i];
        s += ")";
      }
      if (!n.attrs.empty()) s += " {" + n.attrs + "}";
      s += "\n";
    }
    return s;
  }
  ir_node* find(const std::string& name) {
    for (ir_node& n : nodes)
      if (n.name == name) return &n;
    return nullptr;
  }
  int uses(const std::string& name) const {
    int k = 0;
    for (const ir_node& n : nodes) k += static_cast<int>(std::count(n.inputs.begin(), n.inputs.end(), name));
    return k;
  }
};

// MLP: out = (gelu(h w1 + b1) w2 + b2) * (0.5 * 2), the scale left for the folder.
inline ir_graph mlp_graph() {
  ir_graph g;
  g.nodes = {{"h", "Input", {}, ""},        {"w1", "Weight", {}, ""},       {"b1", "Weight", {}, ""},
             {"w2", "Weight", {}, ""},       {"b2", "Weight", {}, ""},       {"half", "Const", {}, "value=0.5"},
             {"two", "Const", {}, "value=2"}, {"scale", "Mul", {"half", "two"}, ""},
             {"fc1", "MatMul", {"h", "w1"}, ""}, {"fc1b", "Add", {"fc1", "b1"}, ""}, {"act", "Gelu", {"fc1b"}, ""},
             {"fc2", "MatMul", {"act", "w2"}, ""}, {"fc2b", "Add", {"fc2", "b2"}, ""},
             {"out", "Scale", {"fc2b", "scale"}, ""}};
  return g;
}

inline double const_value(const ir_node& n) { return atof(n.attrs.c_str() + 6); }

// Mul of two constants becomes a constant.
inline void fold_constants(ir_graph& g) {
  for (ir_node& n : g.nodes) {
    if (n.op != "Mul" || n.inputs.size() != 2) continue;
    const ir_node *a = g.find(n.inputs[0]), *b = g.find(n.inputs[1]);
    if (!a || !b || a->op != "Const" || b->op != "Const") continue;
    n = ir_node{n.name, "Const", {}, "value=" + std::to_string(const_value(*a) * const_value(*b))};
  }
}

// Constants nothing reads any more.
inline void remove_dead(ir_graph& g) {
  for (bool again = true; again;) {
    again = false;
    for (size_t i = 0; i < g.nodes.size(); ++i)
      if (g.nodes[i].op == "Const" && g.uses(g.nodes[i].name) == 0) {
        g.nodes.erase(g.nodes.begin() + static_cast<std::ptrdiff_t>(i));
        again = true;
        break;
      }
  }
}

// MatMul -> Add(bias) [-> Gelu] becomes one fused node named after the last one.
inline void fuse(ir_graph& g, bool bug) {
  for (bool again = true; again;) {
    again = false;
    for (const ir_node& mm : g.nodes) {
      if (mm.op != "MatMul" || g.uses(mm.name) != 1) continue;
      auto add = std::find_if(g.nodes.begin(), g.nodes.end(), [&](const ir_node& n) { return n.op == "Add" && n.inputs[0] == mm.name; });
      if (add == g.nodes.end()) continue;
      ir_node fused{add->name, "FusedMatMulBias", {mm.inputs[0], mm.inputs[1], add->inputs[1]}, ""};
      const std::string gone = mm.name, add_name = add->name;
      auto act = std::find_if(g.nodes.begin(), g.nodes.end(), [&](const ir_node& n) { return n.op == "Gelu" && n.inputs[0] == add_name; });
      bool add_gone = false;
      if (act != g.nodes.end() && g.uses(add_name) == 1) {
        fused.name = act->name;
        fused.op = "FusedMatMulBiasGelu";
        if (bug) fused.inputs.pop_back();  // the planted bug: the bias is lost
        *act = fused;
        add_gone = true;
      } else {
        *add = fused;
      }
      g.nodes.erase(std::remove_if(g.nodes.begin(), g.nodes.end(),
                                   [&](const ir_node& n) { return n.name == gone || (add_gone && n.name == add_name); }),
                    g.nodes.end());
      again = true;
      break;
    }
  }
}

// The second layer's weight is stored transposed (rows of w2^T are read contiguously).
inline void layout(ir_graph& g) {
  for (ir_node& n : g.nodes)
    if (n.op == "FusedMatMulBias" && n.inputs.size() == 3 && n.inputs[1] == "w2") {
      n.attrs = "w_layout=transposed";
      if (ir_node* w = g.find("w2")) w->attrs = "layout=transposed";
    }
}

struct mlp_weights {
  const std::vector<float> *w1, *b1, *w2, *b2;
};

// Runs the compiled graph on h [t, dim]: each node one probe op named "L<l>.<node>".
inline std::vector<float> run_graph(const ir_graph& g, int l, const mlp_weights& w, const std::vector<float>& h,
                                    int dim, int hidden) {
  struct value {
    std::vector<float> data;
    int cols = 0;
  };
  std::map<std::string, value> vals;
  std::vector<float> w2t;
  for (const ir_node& n : g.nodes) {
    value out;
    if (n.op == "Input") {
      out = {h, dim};
    } else if (n.op == "Weight") {
      const std::vector<float>* src = n.name == "w1" ? w.w1 : n.name == "b1" ? w.b1 : n.name == "w2" ? w.w2 : w.b2;
      out = {*src, n.name == "w1" ? hidden : dim};
      if (n.attrs == "layout=transposed") {  // [k, n] -> [n, k]
        const int k = static_cast<int>(src->size()) / out.cols;
        out.data.assign(src->size(), 0.0f);
        for (int r = 0; r < k; ++r)
          for (int c = 0; c < out.cols; ++c) out.data[static_cast<size_t>(c * k + r)] = (*src)[static_cast<size_t>(r * out.cols + c)];
      }
    } else if (n.op == "Const") {
      out = {{static_cast<float>(const_value(n))}, 1};
    } else {
      probe::op op("L" + std::to_string(l) + "." + n.name, n.op.c_str());
      for (const std::string& in : n.inputs)
        if (op.active()) op.input(in.c_str(), vals[in].data);
      const value& x = vals[n.inputs[0]];
      const int rows = static_cast<int>(x.data.size()) / x.cols;
      if (n.op == "MatMul" || n.op == "FusedMatMulBias" || n.op == "FusedMatMulBiasGelu") {
        const value& wv = vals[n.inputs[1]];
        const float* bias = n.inputs.size() > 2 ? vals[n.inputs[2]].data.data() : nullptr;
        const int cols = n.attrs == "w_layout=transposed" ? static_cast<int>(wv.data.size()) / x.cols : wv.cols;
        out = {std::vector<float>(static_cast<size_t>(rows * cols)), cols};
        if (n.attrs == "w_layout=transposed") {
          for (int i = 0; i < rows; ++i)
            for (int j = 0; j < cols; ++j) {
              float s = bias ? bias[j] : 0.0f;
              for (int k = 0; k < x.cols; ++k) s += x.data[static_cast<size_t>(i * x.cols + k)] * wv.data[static_cast<size_t>(j * x.cols + k)];
              out.data[static_cast<size_t>(i * cols + j)] = s;
            }
        } else {
          matmul(x.data.data(), wv.data.data(), bias, out.data.data(), rows, x.cols, cols);
        }
        if (n.op == "FusedMatMulBiasGelu") gelu(out.data.data(), out.data.data(), static_cast<int64_t>(out.data.size()));
      } else if (n.op == "Add") {
        out = x;
        const value& b = vals[n.inputs[1]];
        for (size_t i = 0; i < out.data.size(); ++i) out.data[i] += b.data[i % b.data.size()];
      } else if (n.op == "Gelu") {
        out = {std::vector<float>(x.data.size()), x.cols};
        gelu(x.data.data(), out.data.data(), static_cast<int64_t>(x.data.size()));
      } else if (n.op == "Scale") {
        out = x;
        for (float& e : out.data) e *= vals[n.inputs[1]].data[0];
      }
      op.output("y", probe::view(out.data.data(), {rows, out.cols}));
    }
    vals[n.name] = std::move(out);
  }
  return vals[g.nodes.back().name].data;
}

// Compiles layer l's MLP through the pipeline, then runs it: m = mlp(h).
inline void optimized_mlp(int l, const mlp_weights& w, const std::vector<float>& h, std::vector<float>& m, int t, int dim,
                          int hidden, bool bug) {
  ir_graph g = mlp_graph();
  probe::ir_module mod("mlp.L" + std::to_string(l), static_cast<int64_t>(g.nodes.size()),
                       [&g](probe::ir_out& out) {
                         out << g.text();
                         // The graph form too: drawn by --probe_dump_ir_as_dot / _as_html.
                         for (const ir_node& n : g.nodes) {
                           out.node(n.name, n.op);
                           if (!n.attrs.empty()) out.attr("attrs", n.attrs);
                           for (const std::string& in : n.inputs) out.edge(in, n.name);
                         }
                       });
  { probe::ir_pass p(mod, "fold"); fold_constants(g); }
  { probe::ir_pass p(mod, "dce"); remove_dead(g); }
  { probe::ir_pass p(mod, "fusion"); fuse(g, bug); }
  { probe::ir_pass p(mod, "dce"); remove_dead(g); }
  { probe::ir_pass p(mod, "layout"); layout(g); }
  probe::ir_run run(mod);
  m = run_graph(g, l, w, h, dim, hidden);
  (void)t;
}

}  // namespace engine
