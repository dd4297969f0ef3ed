// Text utilities: probe::format, shortest float text, the JSON writer and reader, and the
// regex engine, each timed against a baseline in the same run (snprintf, std::regex, memmem).
// Results are recorded in benchmarks/README.md ("Text: format, JSON, regex").
#include <probe/probe.hpp>
#include <probe/util/regex.hpp>
#include <probe/formats/json.hpp>

#include <cstdio>
#include <cstring>
#include <regex>
#include <string>
#include <vector>

#include "harness.hpp"

int main(int argc, char** argv) {
  bench::parse_args(argc, argv);
  const long iters = 20000;

  std::printf("== probe::format vs snprintf\n");
  {
    int i = 0;
    double loss = 0.123456789;
    auto r = bench::time_pair_ns(
        [&] {
          std::string s = probe::format("step {}: loss={:.4f} n={} tag={}", ++i, loss, 4096, "train");
          bench::do_not_optimize(s.data());
        },
        [&] {
          char buf[128];
          const int n = std::snprintf(buf, sizeof buf, "step %d: loss=%.4f n=%d tag=%s", ++i, loss, 4096, "train");
          std::string s(buf, static_cast<size_t>(n));
          bench::do_not_optimize(s.data());
        },
        iters);
    bench::print_pair("format: 4 scalars", r, "snprintf + std::string: 4 scalars");
  }
  {
    std::vector<float> v(1000);
    for (size_t k = 0; k < v.size(); ++k) v[k] = static_cast<float>(k) * 0.37f - 100;
    auto r = bench::time_pair_ns(
        [&] {
          std::string s = probe::format("{}", v);
          bench::do_not_optimize(s.data());
        },
        [&] {
          std::string s = "[";
          char buf[32];
          for (float x : v) s.append(buf, static_cast<size_t>(std::snprintf(buf, sizeof buf, "%.8g ", x)));
          s += ']';
          bench::do_not_optimize(s.data());
        },
        iters / 100);
    bench::print_pair("format: 1000-float tensor, numpy style", r, "snprintf %.8g per element");
  }

  std::printf("== shortest round-trip double vs snprintf %%.17g\n");
  {
    std::vector<double> xs(1024);
    for (size_t k = 0; k < xs.size(); ++k) xs[k] = (static_cast<double>(k) * 2654435761.0) / 1e7 + 1.0 / (k + 3);
    size_t k = 0;
    auto r = bench::time_pair_ns(
        [&] {
          char buf[40];
          bench::do_not_optimize(probe::detail::write_shortest(buf, xs[k++ & 1023]));
        },
        [&] {
          char buf[40];
          bench::do_not_optimize(std::snprintf(buf, sizeof buf, "%.17g", xs[k++ & 1023]));
        },
        iters * 10);
    bench::print_pair("write_shortest(double)", r, "snprintf %.17g");
  }

  std::printf("== JSON: one manifest line\n");
  std::string line;
  auto write_line = [](std::string& out, int seq) {
    probe::json::writer w(out);
    w.begin_object()
        .member("seq", seq)
        .member("step", 3)
        .member("op", "encoder/layer3/attn/softmax")
        .member("type", "Softmax")
        .member("occurrence", 7)
        .member("io", "out")
        .member("slot", "y")
        .member("key", "encoder/layer3/attn/softmax#7/out/y")
        .member("dtype", "float32");
    w.key("shape").begin_array().value(8).value(128).value(128).end_array();
    w.member("file", "op_000012.encoder_layer3_attn_softmax.out.y.npy")
        .member("min", -3.25)
        .member("max", 17.0625)
        .member("mean", 0.0078125)
        .member("std", 1.0413290262222290)
        .member("nan", 0)
        .member("inf", 0)
        .member("zero", 12)
        .end_object();
  };
  {
    int seq = 0;
    auto r = bench::time_pair_ns(
        [&] {
          line.clear();
          write_line(line, ++seq);
          bench::do_not_optimize(line.data());
        },
        [&] {
          char buf[512];
          const int n = std::snprintf(
              buf, sizeof buf,
              "{\"seq\":%d,\"step\":%d,\"op\":\"%s\",\"type\":\"%s\",\"occurrence\":%d,\"io\":\"%s\",\"slot\":\"%s\","
              "\"key\":\"%s\",\"dtype\":\"%s\",\"shape\":[%d,%d,%d],\"file\":\"%s\",\"min\":%.17g,\"max\":%.17g,"
              "\"mean\":%.17g,\"std\":%.17g,\"nan\":%d,\"inf\":%d,\"zero\":%d}",
              ++seq, 3, "encoder/layer3/attn/softmax", "Softmax", 7, "out", "y", "encoder/layer3/attn/softmax#7/out/y",
              "float32", 8, 128, 128, "op_000012.encoder_layer3_attn_softmax.out.y.npy", -3.25, 17.0625, 0.0078125,
              1.0413290262222290, 0, 0, 12);
          line.assign(buf, static_cast<size_t>(n));
          bench::do_not_optimize(line.data());
        },
        iters);
    bench::print_pair("json::writer: manifest line (19 members)", r, "snprintf, unescaped, %.17g");
  }
  {
    std::string text;
    write_line(text, 12);
    std::string scratch;
    auto r = bench::time_pair_ns(
        [&] {
          probe::json::value v;
          bench::do_not_optimize(probe::json::parse(text, v));
        },
        [&] {
          scratch.clear();
          write_line(scratch, 12);
          bench::do_not_optimize(scratch.data());
        },
        iters);
    bench::print_pair("json::parse: the same line", r, "json::writer: writing it");
  }

  std::printf("== regex: op-name filters\n");
  const std::vector<std::string> names = {
      "encoder/layer3/attn/softmax", "encoder/layer3/mlp/conv12",  "decoder/layer11/attn/qkv_proj",
      "embedding/lookup",            "encoder/layer1/mlp/relu",     "head/logits/matmul",
      "decoder/layer2/mlp/gelu",     "encoder/layer7/attn/out_proj"};
  struct filter {
    const char* pattern;
    const char* what;
  };
  for (filter f : {filter{"conv[0-9]+|relu", "search 'conv[0-9]+|relu'"}, filter{"layer(1|2)/(attn|mlp)", "search 'layer(1|2)/(attn|mlp)'"},
                   filter{"softmax", "search 'softmax' (a plain string)"}}) {
    probe::detail::regex mine;
    mine.compile(f.pattern);
    const std::regex ref(f.pattern, std::regex::ECMAScript);
    size_t k = 0;
    auto r = bench::time_pair_ns(
        [&] {
          const std::string& s = names[k++ & 7];
          bench::do_not_optimize(mine.search(s));
        },
        [&] {
          const std::string& s = names[k++ & 7];
          bench::do_not_optimize(std::regex_search(s, ref));
        },
        iters * 5);
    char name[96];
    std::snprintf(name, sizeof name, "regex %s", f.what);
    bench::print_pair(name, r, "std::regex_search, same pattern");
  }
  {
    probe::detail::regex mine;
    mine.compile("softmax");
    size_t k = 0;
    auto r = bench::time_pair_ns(
        [&] {
          const std::string& s = names[k++ & 7];
          bench::do_not_optimize(mine.search(s));
        },
        [&] {
          const std::string& s = names[k++ & 7];
          bench::do_not_optimize(std::strstr(s.c_str(), "softmax"));
        },
        iters * 5);
    bench::print_pair("regex search 'softmax'", r, "strstr");
  }
  return 0;
}
