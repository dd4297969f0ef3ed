// The breakpoint prompt: pdb's commands over probe's frames, plus info, stats and dump.
// Reads lines from a FILE (stdin, a commands file, or a test's string), writes through a
// callback; every error is one "*** ..." line and the prompt stays. Internal header.
#pragma once
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "../core/format.hpp"
#include "../core/format_tensor.hpp"
#include "../core/stats.hpp"
#include "../formats/npy.hpp"
#include "../util/hash.hpp"
#include "breakpoint_expr.hpp"
#include "breakpoint_frames.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

enum class prompt_action : uint8_t { resume, quit };

struct prompt_io {
  FILE* in = nullptr;
  bool echo = false;  // write each command after the prompt (the input is not a terminal)
  void (*write)(void* ctx, const char* text, size_t n) = nullptr;
  void* ctx = nullptr;
  const char* source_name = "stdin";  // for the end-of-input message
};

namespace bp_prompt {

inline const char* help_text() noexcept {
  return "Commands:\n"
         "  p EXPR              print a value (numpy style; long tensors are summarized)\n"
         "  pp EXPR             print every element\n"
         "  info [NAME]         the current frame's variables: dtype, shape, device\n"
         "  stats EXPR          counts of NaN, Inf, zero...; min, max, mean, std of the finite values\n"
         "  dump EXPR FILE.npy  write the value to a .npy file\n"
         "  w, where, bt        list the frames (innermost last; '>' marks the current one)\n"
         "  u, up [N]           move N frames out (to an enclosing op)\n"
         "  d, down [N]         move N frames in\n"
         "  l, list             source lines around the current line; again: the next lines\n"
         "  c, cont, continue   leave the prompt; the program goes on\n"
         "  q, quit, exit       end the program (exit status 3)\n"
         "  help                this list\n"
         "EXPR: name, name[i], name[i, j], name[a:b], name[a:b:step], name.shape, name.dtype\n"
         "An empty line repeats the last command.\n";
}

inline std::string number_text(double x) { return ::probe::format("{}", x); }

class session {
 public:
  session(stop_info& stop, prompt_io& io) : s_(stop), io_(io) {}

  prompt_action run() {
    out_ = "probe: " + s_.reason + " " + stop_where(s_) + "; 'help' lists the commands\n";
    show_current_line();
    flush();
    std::string last;
    char* buf = nullptr;
    size_t cap = 0;
    for (;;) {
      say("(probe) ");
      flush();
      const ssize_t n = getline(&buf, &cap, io_.in);
      if (n < 0) {
        free(buf);
        // Ctrl-D at a terminal leaves this stop only: the next one reads the terminal again.
        if (isatty(fileno(io_.in))) clearerr(io_.in);
        say(std::string("\nprobe: end of input on ") + io_.source_name + " at the breakpoint prompt; continuing\n");
        flush();
        return prompt_action::resume;
      }
      std::string line(buf, static_cast<size_t>(n));
      while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
      if (io_.echo) say(line + "\n");
      std::string cmd = bp_expr::trim(line);
      if (cmd.empty()) cmd = last;  // pdb: an empty line repeats the last command
      else last = cmd;
      if (cmd.empty()) continue;
      const prompt_action* done = nullptr;
      prompt_action action = prompt_action::resume;
      try {
        if (execute(cmd, &action)) done = &action;
      } catch (...) {
        say("*** out of memory\n");
      }
      flush();
      if (done) {
        free(buf);
        return *done;
      }
    }
  }

 private:
  void say(const std::string& t) { out_ += t; }
  void error(const std::string& t) { out_ += "*** " + t + "\n"; }
  void flush() {
    if (!out_.empty() && io_.write) io_.write(io_.ctx, out_.data(), out_.size());
    out_.clear();
  }
  frame& cur() { return s_.frames[cur_]; }

  // Runs one command; true when the prompt ends (*action says how).
  bool execute(const std::string& cmd, prompt_action* action) {
    size_t sp = 0;
    while (sp < cmd.size() && !bp_expr::is_space(cmd[sp])) ++sp;
    const std::string word = cmd.substr(0, sp);
    const std::string arg = bp_expr::trim(cmd.substr(sp));
    if (word == "c" || word == "cont" || word == "continue") {
      *action = prompt_action::resume;
      return true;
    }
    if (word == "q" || word == "quit" || word == "exit") {
      *action = prompt_action::quit;
      return true;
    }
    if (word == "h" || word == "help") say(help_text());
    else if (word == "p") print_value(arg, false);
    else if (word == "pp") print_value(arg, true);
    else if (word == "w" || word == "where" || word == "bt") where();
    else if (word == "u" || word == "up") move(arg, +1);
    else if (word == "d" || word == "down") move(arg, -1);
    else if (word == "l" || word == "list") list();
    else if (word == "info") info(arg);
    else if (word == "stats") stats(arg);
    else if (word == "dump") dump(arg);
    else error("unknown command '" + word + "' (help lists the commands)");
    return false;
  }

  // A value of the current frame on the host; false after reporting an error.
  bool value(const std::string& text, expr_value* v, tensor* storage, tensor_view* host) {
    std::string err;
    if (!eval_expr(cur(), text, v, &err)) {
      error(err);
      return false;
    }
    if (v->is_text) return true;
    if (v->var && !v->var->unavailable.empty()) {
      error("'" + bp_expr::trim(text) + "': " + v->var->unavailable);
      return false;
    }
    if (!host_view_of(v->view, storage, host, &err)) {
      error("'" + bp_expr::trim(text) + "': " + err);
      return false;
    }
    if (host->numel() > 0 && !host->data) {
      error("'" + bp_expr::trim(text) + "' has no data");
      return false;
    }
    return true;
  }

  void print_value(const std::string& text, bool full) {
    expr_value v;
    tensor storage;
    tensor_view host;
    if (!value(text, &v, &storage, &host)) return;
    if (v.is_text) {
      say(v.text + "\n");
      return;
    }
    tensor_format f;
    if (full) f.threshold = INT64_MAX;
    std::string s;
    format_tensor(s, host, f);
    say(s + "\n");
  }

  void where() {
    for (size_t i = s_.frames.size(); i-- > 0;)
      say(std::string(i == cur_ ? "> " : "  ") + frame_title(s_.frames[i], i) + "\n");
  }

  void move(const std::string& arg, int dir) {
    int64_t count = 1;
    bool present = false;
    if (!bp_expr::parse_int(arg, &count, &present) || count < 0) {
      error("expected a frame count, not '" + arg + "'");
      return;
    }
    if (!present) count = 1;
    const int64_t last = static_cast<int64_t>(s_.frames.size()) - 1;
    int64_t to = static_cast<int64_t>(cur_) + dir * count;
    if (dir > 0 && static_cast<int64_t>(cur_) == last) return error("Oldest frame");
    if (dir < 0 && cur_ == 0) return error("Newest frame");
    to = to < 0 ? 0 : to > last ? last : to;
    cur_ = static_cast<size_t>(to);
    list_next_ = 0;  // as pdb: after a frame change, 'list' shows the lines around its location
    say("> " + frame_title(cur(), cur_) + "\n");
  }

  // The current frame's source file, read once; false after reporting why not.
  bool source(std::vector<std::string>** lines) {
    const frame& f = cur();
    if (f.file.empty() || f.line <= 0) {
      error("no source location for this frame (" + frame_title(f, cur_) + ")");
      return false;
    }
    if (source_file_ != f.file) {
      source_file_ = f.file;
      source_lines_.clear();
      source_error_.clear();
      FILE* in = fopen(f.file.c_str(), "r");
      if (!in) {
        source_error_ = strerror(errno);
      } else {
        char* buf = nullptr;
        size_t cap = 0;
        ssize_t n;
        while ((n = getline(&buf, &cap, in)) >= 0) {
          std::string l(buf, static_cast<size_t>(n));
          while (!l.empty() && (l.back() == '\n' || l.back() == '\r')) l.pop_back();
          source_lines_.push_back(l);
        }
        free(buf);
        fclose(in);
      }
    }
    if (!source_error_.empty()) {
      error("cannot read the source file " + f.file + ": " + source_error_);
      return false;
    }
    *lines = &source_lines_;
    return true;
  }

  void list_lines(const std::vector<std::string>& lines, int first, int last, int mark) {
    if (first < 1) first = 1;
    for (int n = first; n <= last; ++n) {
      if (n > static_cast<int>(lines.size())) {
        say("[EOF]\n");
        list_next_ = n;
        return;
      }
      char head[32];
      snprintf(head, sizeof head, "%4d%s\t", n, n == mark ? " ->" : "   ");
      say(head + lines[static_cast<size_t>(n - 1)] + "\n");
    }
    list_next_ = last + 1;
  }

  void list() {
    std::vector<std::string>* lines;
    if (!source(&lines)) return;
    const int line = cur().line;
    if (list_next_ > 0) {
      if (list_next_ > static_cast<int>(lines->size())) return say("[EOF]\n");
      list_lines(*lines, list_next_, list_next_ + 10, line);
    } else {
      list_lines(*lines, line - 5, line + 5, line);
    }
  }

  void show_current_line() {
    const frame& f = cur();
    if (f.file.empty() || f.line <= 0) return;
    std::vector<std::string>* lines;
    const std::string saved = out_;
    if (!source(&lines) || f.line > static_cast<int>(lines->size())) {
      out_ = saved;  // the source is optional here: no error line
      return;
    }
    say("-> " + bp_expr::trim((*lines)[static_cast<size_t>(f.line - 1)]) + "\n");
  }

  void info(const std::string& arg) {
    const frame& f = cur();
    if (!arg.empty()) {
      const frame_var* v = f.find(arg);
      if (!v) return error("name '" + arg + "' is not defined in this frame (info lists the variables)");
      // An op's tensor: the program's view as given, then what the frame shows of it.
      const tensor_view& g = v->given.valid() ? v->given : v->view;
      std::string strides = "(";
      for (int d = 0; d < g.ndim; ++d) strides += (d ? ", " : "") + std::to_string(g.strides[d]);
      strides += g.ndim == 1 ? ",)" : ")";
      std::string line = v->name + ": " + shape_text(g) + ", strides " + strides + " (elements), " + device_text(g) +
                         ", " + ::probe::format("{}", g.data);
      if (v->copied) line += "; shown: the copy made when the op recorded it";
      if (!v->unavailable.empty()) line += "; " + v->unavailable;
      say(line + "\n");
      return;
    }
    say("frame " + frame_title(f, cur_) + ":\n");
    if (f.vars.empty()) return say("  (no variables)\n");
    size_t wn = 0, ws = 0;
    for (const frame_var& v : f.vars) {
      wn = v.name.size() > wn ? v.name.size() : wn;
      ws = shape_text(v.view).size() > ws ? shape_text(v.view).size() : ws;
    }
    for (const frame_var& v : f.vars) {
      std::string line = "  " + v.name + std::string(wn - v.name.size() + 2, ' ');
      const std::string st = shape_text(v.view);
      line += st + std::string(ws - st.size() + 2, ' ') + device_text(v.view);
      say(line + "\n");
    }
  }

  void stats(const std::string& arg) {
    expr_value v;
    tensor storage;
    tensor_view host;
    if (!value(arg, &v, &storage, &host)) return;
    if (v.is_text) return error("stats needs a tensor, not ." + std::string(v.text == dtype_name(v.view.type) ? "dtype" : "shape"));
    const health h = compute_health(host);
    if (!h.valid) return error("cannot compute statistics of '" + arg + "'");
    say(bp_expr::trim(arg) + ": " + shape_text(host) + " count " + std::to_string(h.count) + ", finite " +
        std::to_string(h.finite) + ", nan " + std::to_string(h.nan) + ", +inf " + std::to_string(h.pos_inf) +
        ", -inf " + std::to_string(h.neg_inf) + ", zero " + std::to_string(h.zero) + ", subnormal " +
        std::to_string(h.subnormal) + ", negative " + std::to_string(h.negative) + ", positive " +
        std::to_string(h.positive) + "\n");
    say("  min " + number_text(h.min) + ", max " + number_text(h.max) + ", mean " + number_text(h.mean) +
        ", std " + number_text(h.std) + "\n");
  }

  void dump(const std::string& arg) {
    size_t cut = arg.size();
    while (cut > 0 && !bp_expr::is_space(arg[cut - 1])) --cut;
    const std::string file = arg.substr(cut);
    const std::string expr = bp_expr::trim(arg.substr(0, cut));
    if (expr.empty() || file.empty()) return error("usage: dump EXPR FILE.npy");
    expr_value v;
    tensor storage;
    tensor_view host;
    if (!value(expr, &v, &storage, &host)) return;
    if (v.is_text) return error("dump needs a tensor, not an attribute");
    std::string err;
    if (!npy::write(file, host, &err))  // its message names the file, as a rule: not twice
      return error(err.find(file) != std::string::npos ? err : "cannot write " + file + ": " + err);
    say("wrote " + file + " (" + shape_text(host) + ")\n");
  }

  stop_info& s_;
  prompt_io& io_;
  std::string out_;
  size_t cur_ = 0;
  int list_next_ = 0;  // the line the next 'list' continues from (0: around the current line)
  std::string source_file_, source_error_;
  std::vector<std::string> source_lines_;
};

}  // namespace bp_prompt

// Runs the prompt until a command resumes or quits the program, or the input ends (resume).
PROBE_API prompt_action run_prompt(stop_info& stop, prompt_io& io) noexcept;

}  // namespace detail
PROBE_END_NAMESPACE
