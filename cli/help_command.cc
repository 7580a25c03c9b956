#include "cli/help_command.h"

#include <fmt/format.h>

#include <cstdio>
#include <string_view>

#include "cli/usage_error.h"

namespace slicelab {

namespace {

// The names of `app`'s commands, in the order the help lists them.
std::string command_names(const CLI::App& app) {
  std::string out;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    out += (out.empty() ? "" : ", ") + sub->get_name();
  return out;
}

// The command of `app` called `word`, or null (CLI::App::get_subcommand throws instead).
const CLI::App* find_command(const CLI::App& app, const std::string& word) {
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    if (sub->check_name(word)) return sub;
  return nullptr;
}

bool has_positionals(const CLI::App& app) {
  return !app.get_options([](const CLI::Option* o) { return o->get_positional(); }).empty();
}

// "slicelab import" for the import command: the words that name it, after the program's name.
std::string command_path(const CLI::App& sub) {
  std::string path = sub.get_name();
  for (const CLI::App* p = sub.get_parent(); p != nullptr && p->get_parent() != nullptr;
       p = p->get_parent())
    path = p->get_name() + " " + path;
  return "slicelab " + path;
}

}  // namespace

HelpCommand::HelpCommand(CLI::App& app)
    : cmd_(app.add_subcommand("help", "Print the main help, or a command's (help compare)")) {
  cmd_->add_option("command", topic_, "A command, or a command and its subcommand");
}

bool HelpCommand::asked(int argc, const char* const* argv) {
  return argc >= 2 && std::string_view(argv[1]) == "help";
}

int HelpCommand::run(const CLI::App& app, int argc, const char* const* argv) const {
  const CLI::App* at = &app;
  std::string prev = argv[0];
  for (int i = 2; i < argc; ++i) {
    const std::string word = argv[i];
    const CLI::App* next = find_command(*at, word);
    if (next == nullptr)
      throw UsageError(fmt::format("help: unknown command '{}' (the commands are: {})", word,
                                   command_names(*at)));
    if (at != &app) prev += " " + at->get_name();
    at = next;
  }
  // CLI::App::help would show the help of the parsed command (this one): ask the formatter.
  const std::string text =
      at == &app ? app.get_formatter()->make_help(&app, prev, CLI::AppFormatMode::Normal)
                 : at->help(prev);
  std::fputs(text.c_str(), stdout);
  return 0;
}

std::optional<std::string> unknown_command(const CLI::App& app, int argc, const char* const* argv) {
  const CLI::App* at = &app;
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word.empty() || word.front() == '-') return std::nullopt;
    if (const CLI::App* next = find_command(*at, std::string(word))) {
      at = next;
      continue;
    }
    if (has_positionals(*at) || at->get_subcommands([](const CLI::App*) { return true; }).empty())
      return std::nullopt;
    return fmt::format("unknown command '{}'{} (the commands are: {})", word,
                       at == &app ? "" : " of " + command_path(*at), command_names(*at));
  }
  return std::nullopt;
}

bool help_requested(const CLI::App& app) {
  for (const CLI::App* at = &app; at != nullptr;) {
    if (const CLI::Option* h = at->get_help_ptr(); h != nullptr && h->count() > 0) return true;
    const auto parsed = at->get_subcommands();
    at = parsed.empty() ? nullptr : parsed.front();
  }
  return false;
}

}  // namespace slicelab
