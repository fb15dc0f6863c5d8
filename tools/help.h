// `plumb --help`, `plumb help COMMAND`, `plumb COMMAND --help` and `plumb --version`: the texts a
// user reads before the first run (usage, every option, exit codes). One table of commands, so
// the overview and each command's page cannot disagree.
#pragma once

#include <cstdio>
#include <string>

namespace plumb::cli {

// The overview: every command with its synopsis.
void print_overview(std::FILE* out);
// One command's page; false when `command` is not a command.
bool print_command_help(const std::string& command, std::FILE* out);
// Whether `command` has a page.
bool is_command(const std::string& command);
// plumb's version, the core op set version, the build options and the backends built.
void print_version(std::FILE* out);

}  // namespace plumb::cli
