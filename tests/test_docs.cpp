// The docs cannot go stale (issue 48). Every `build/cli/dtsim` command in a fenced block of
// README.md and docs/*.md runs, from a folder laid out as the source folder, and must succeed:
//  - ```sh (or plain ```) blocks: one command a line (a trailing "  # comment" and "\" continuations
//    allowed);
//  - ```console (or plain ```) blocks: "$ build/cli/dtsim ..." then the lines it prints that the page shows; each
//    shown line must be one of the lines printed (runs of spaces count as one; "..." skips). A
//    shown "dtsim: error: ..." line means the command must exit with code 2.
// README's question table: each row's command prints its excerpt, and `dtsim` with no arguments
// lists the same commands. Each example of a command's --help is a command of the docs (so it runs).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace dtsim {
namespace {

namespace fs = std::filesystem;

struct DocCommand {
  int line = 0;             // in the page, 1-based
  std::string args;         // after "build/cli/dtsim "
  std::vector<std::string> shown;  // console blocks: the printed lines the page shows
};

std::string squeeze(const std::string& text) {  // runs of blanks as one space, none at the ends
  std::string out;
  for (char c : text) {
    if (c == ' ' || c == '\t') {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

const std::string kCli = "build/cli/dtsim";

// The commands of one page, in order.
std::vector<DocCommand> commands_of(const fs::path& page) {
  const std::vector<std::string> lines = lines_of(test::read_file(page));
  std::vector<DocCommand> out;
  std::string block;     // the open fence's language
  bool in_block = false;
  bool showing = false;  // the lines that follow belong to out.back() (a console command)
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (line.rfind("```", 0) == 0) {
      in_block = !in_block;
      block = in_block ? line.substr(3) : "";
      showing = false;
      continue;
    }
    if (!in_block) continue;
    if ((block == "sh" || block.empty()) && line.rfind(kCli + " ", 0) == 0) {
      std::string command = line;
      while (!command.empty() && command.back() == '\\' && i + 1 < lines.size()) {
        command.pop_back();
        command += " " + lines[++i];
      }
      command = std::regex_replace(command, std::regex(R"(\s{2,}#.*$)"), "");
      out.push_back({int(i) + 1, squeeze(command.substr(kCli.size())), {}});
    } else if ((block == "console" || block.empty()) && line.rfind("$ ", 0) == 0) {
      showing = line == "$ " + kCli || line.rfind("$ " + kCli + " ", 0) == 0;
      if (showing) out.push_back({int(i) + 1, squeeze(line.substr(2 + kCli.size())), {}});
    } else if (showing && line != "..." && !squeeze(line).empty()) {
      out.back().shown.push_back(squeeze(line));
    }
  }
  return out;
}

// A folder laid out as the source folder (its files linked, not copied), with build/cli/dtsim.
void lay_out(const fs::path& dir) {
  for (const fs::directory_entry& e : fs::directory_iterator(test::source_dir())) {
    const std::string name = e.path().filename().string();
    if (name == "build" || name.rfind('.', 0) == 0) continue;
    fs::create_symlink(e.path(), dir / name);
  }
  fs::create_directories(dir / "build" / "cli");
  fs::create_symlink(DTSIM_CLI, dir / "build" / "cli" / "dtsim");
}

// `build/cli/dtsim ARGS` run in `dir`, through the shell as a reader would type it.
test::CliResult run_in(const fs::path& dir, const std::string& args) {
  return test::run_shell("cd '" + dir.string() + "' && build/cli/dtsim " + args);
}

std::vector<fs::path> pages() {
  std::vector<fs::path> out = {test::source_dir() / "README.md"};
  for (const fs::directory_entry& e : fs::directory_iterator(test::source_dir() / "docs"))
    if (e.path().extension() == ".md") out.push_back(e.path());
  std::sort(out.begin() + 1, out.end());
  return out;
}

std::string page_name(const fs::path& page) {
  std::string name = page.parent_path().filename() == "docs" ? "docs_" + page.stem().string() : page.stem().string();
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

class DocPage : public ::testing::TestWithParam<fs::path> {};

TEST_P(DocPage, EveryCommandRunsAndPrintsWhatThePageShows) {
  const fs::path page = GetParam();
  const test::ScratchDir dir;
  lay_out(dir.path());
  const std::string where = page.filename().string();
  for (const DocCommand& c : commands_of(page)) {
#ifndef DTSIM_WITH_PLOT
    if (c.args.find("--png") != std::string::npos || c.args.find("--svg") != std::string::npos) continue;
#endif
    const test::CliResult r = run_in(dir.path(), c.args);
    const bool error_shown = std::any_of(c.shown.begin(), c.shown.end(),
                                         [](const std::string& s) { return s.rfind("dtsim: error:", 0) == 0; });
    EXPECT_EQ(r.exit_code, error_shown ? 2 : 0) << where << ":" << c.line << ": dtsim " << c.args << "\n" << r.output;
    std::set<std::string> printed;
    for (const std::string& line : lines_of(r.output)) printed.insert(squeeze(line));
    for (const std::string& shown : c.shown)
      EXPECT_TRUE(printed.count(shown)) << where << ":" << c.line << ": dtsim " << c.args
                                        << "\nthe page shows a line it no longer prints:\n  " << shown << "\nit printed:\n"
                                        << r.output;
  }
}

INSTANTIATE_TEST_SUITE_P(Docs, DocPage, ::testing::ValuesIn(pages()),
                         [](const ::testing::TestParamInfo<fs::path>& info) { return page_name(info.param); });

// README's "What it answers": | question | `dtsim COMMAND` | `excerpt` |.
struct QuestionRow {
  std::string command, excerpt;
};
std::vector<QuestionRow> question_rows() {
  std::vector<QuestionRow> rows;
  const std::regex row(R"(^\| [^|]+ \| `dtsim ([^`]+)` \| `([^`]+)` \|$)");
  for (const std::string& line : lines_of(test::read_file(test::source_dir() / "README.md"))) {
    std::smatch m;
    if (std::regex_match(line, m, row)) rows.push_back({m[1], m[2]});
  }
  return rows;
}

TEST(Docs, TheReadmesQuestionTableIsWhatDtsimPrintsAndEachCommandPrintsItsLine) {
  const std::vector<QuestionRow> rows = question_rows();
  ASSERT_GE(rows.size(), 8u);
  const test::CliResult table = test::run_dtsim("");
  EXPECT_EQ(table.exit_code, 0);
  std::vector<std::string> listed;
  for (const std::string& line : lines_of(table.output))
    if (squeeze(line).rfind("dtsim ", 0) == 0) listed.push_back(squeeze(line).substr(6));
  std::vector<std::string> in_readme;
  for (const QuestionRow& r : rows) in_readme.push_back(r.command);
  EXPECT_EQ(listed, in_readme);

  const test::ScratchDir dir;
  lay_out(dir.path());
  for (const QuestionRow& r : rows) {
    const test::CliResult out = run_in(dir.path(), r.command);
    EXPECT_EQ(out.exit_code, 0) << r.command << "\n" << out.output;
    EXPECT_NE(squeeze(out.output).find(r.excerpt), std::string::npos)
        << "dtsim " << r.command << " no longer prints\n  " << r.excerpt << "\n" << out.output;
  }
}

TEST(Docs, EveryHelpExampleIsACommandOfTheDocs) {
  std::set<std::string> documented;
  for (const fs::path& page : pages())
    for (const DocCommand& c : commands_of(page)) documented.insert(c.args);
  for (const QuestionRow& r : question_rows()) documented.insert(r.command);
  for (const std::string command : {"", "run", "validate", "topo", "collective", "plan", "goodput", "sweep",
                                    "compare-strategies", "import", "calibrate"}) {
    const test::CliResult help = test::run_dtsim(command + " --help");
    EXPECT_EQ(help.exit_code, 0) << command;
    const std::vector<std::string> lines = lines_of(help.output);
    const auto examples = std::find(lines.begin(), lines.end(), "Examples (from the source folder):");
    ASSERT_NE(examples, lines.end()) << "dtsim " << command << " --help has no examples\n" << help.output;
    int count = 0;
    for (auto it = examples + 1; it != lines.end() && it->rfind("  dtsim", 0) == 0; ++it, ++count) {
      const std::string args = squeeze(it->substr(2 + std::string("dtsim").size()));
      EXPECT_TRUE(documented.count(args)) << "dtsim " << command << " --help's example is in no doc page: dtsim "
                                          << args;
    }
    EXPECT_GE(count, 1) << command;
  }
}

}  // namespace
}  // namespace dtsim
