#include "cli/explain_command.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdio>

#include "cli/input_paths.h"
#include "sim/scenario/explain_run.h"

namespace slicelab {

ExplainCommand::ExplainCommand(CLI::App& app) {
  cmd_ = app.add_subcommand(
      "explain",
      "Why a pod went where it went in a run of one policy: each filter's verdict per node, each "
      "scorer's scores for the top candidates, the tie-break and the GPUs chosen, per attempt");
  cmd_->add_option("scenario", scenario_, "Scenario YAML file")
      ->required()
      ->check(existing_input_file());
  cmd_->add_option("-p,--policy", policy_, "The scenario's policy to run")->required();
  cmd_->add_option("--pod", pod_, "The pod to explain (its name in the workload)")->required();
  cmd_->add_option("--seed", seed_, "Override the scenario's seed, as run does")
      // As run's --seed: the text itself, not CLI11's saturating conversion.
      ->check(CLI::Validator(
          [](const std::string& text) -> std::string {
            int64_t v = 0;
            const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
            if (ec == std::errc() && end == text.data() + text.size() && v >= 0) return "";
            return fmt::format("expected an integer in 0..{}, found '{}'", INT64_MAX, text);
          },
          "INT in [0 - 9223372036854775807]", "seed"));
  cmd_->add_option("--top", top_, "Candidates whose scores are shown per attempt (default 5)")
      ->check(CLI::Range(size_t{1}, size_t{1000000}));
  cmd_->add_option("--nodes", nodes_,
                   "Show each node's verdicts up to this many nodes, else count them by reason "
                   "(default 20)")
      ->check(CLI::Range(size_t{0}, size_t{1000000}));
  add_format_option(*cmd_, format_);
}

int ExplainCommand::run() const {
  std::optional<uint64_t> seed;
  if (seed_) seed = static_cast<uint64_t>(*seed_);
  const Scenario sc = load_scenario(scenario_, seed);
  const PlacementExplanation e = explain_run(sc, policy_, pod_, ExplainOptions{top_, nodes_});
  if (format_.json())
    std::printf("%s\n", explanation_json(e).dump(2).c_str());
  else
    std::fputs(explanation_text(e).c_str(), stdout);
  return 0;
}

}  // namespace slicelab
