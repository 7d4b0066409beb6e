// Output files (sim/base/atomic_file.hpp, cli/flag_values.hpp): written whole, never over an
// input, a device, a FIFO or a user's file beside them (robustness campaign of 2026-11-26, rows
// 1-3 of issue 45).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "atomic_file.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace dtsim;

namespace {

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

mode_t mode_of(const fs::path& file) {
  struct stat st {};
  EXPECT_EQ(stat(file.c_str(), &st), 0);
  return st.st_mode;
}

// A copy of the 1.3B scenario whose topology is named by an absolute path, in `dir`.
fs::path scenario_copy(const test::ScratchDir& dir) {
  std::string text = read_text(test::source_dir() / "scenarios" / "gpt3-1.3b-8-h100.yaml");
  const std::string relative = "../topologies/";
  text.replace(text.find(relative), relative.size(), (test::source_dir() / "topologies").string() + "/");
  return dir.write("s.yaml", text);
}

}  // namespace

TEST(OutputFile, NewFileGetsTheUmasksPermissionsAndNothingElseIsLeft) {
  test::ScratchDir dir;
  const mode_t old_mask = umask(022);
  EXPECT_EQ(write_file_atomically(dir.path() / "out.json", "{}\n"), "");
  umask(old_mask);
  EXPECT_EQ(read_text(dir.path() / "out.json"), "{}\n");
  EXPECT_EQ(mode_of(dir.path() / "out.json") & 0777, 0644u);
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"out.json"});
}

TEST(OutputFile, ReplacedFileKeepsItsPermissionsAndALinkStaysALink) {
  test::ScratchDir dir;
  const fs::path file = dir.write("out.json", "old");
  chmod(file.c_str(), 0600);
  fs::create_symlink("out.json", dir.path() / "link.json");
  EXPECT_EQ(write_file_atomically(dir.path() / "link.json", "new"), "");
  EXPECT_TRUE(fs::is_symlink(dir.path() / "link.json"));
  EXPECT_EQ(read_text(file), "new");
  EXPECT_EQ(mode_of(file) & 0777, 0600u);
  EXPECT_EQ(names_in(dir.path()), (std::vector<std::string>{"link.json", "out.json"}));
}

// F-05: the fixed name PATH.tmp used to be truncated and renamed away.
TEST(OutputFile, AUsersFileBesideTheOutputIsLeftAlone) {
  test::ScratchDir dir;
  dir.write("out.json.tmp", "keep");
  EXPECT_EQ(write_file_atomically(dir.path() / "out.json", "{}"), "");
  EXPECT_EQ(read_text(dir.path() / "out.json.tmp"), "keep");
}

// F-18 without a device node: a FIFO is written through, and stays a FIFO; one nobody reads is
// an error at once, not a wait.
TEST(OutputFile, AFifoIsWrittenInPlaceAndOneWithoutAReaderIsRefused) {
  test::ScratchDir dir;
  const fs::path fifo = dir.path() / "pipe";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(write_file_atomically(fifo, "x"), "a FIFO that no process reads");
  const int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  EXPECT_EQ(write_file_atomically(fifo, "through the pipe"), "");
  char buffer[64] = {};
  EXPECT_EQ(read(reader, buffer, sizeof buffer), 16);
  close(reader);
  EXPECT_EQ(std::string(buffer), "through the pipe");
  EXPECT_TRUE(S_ISFIFO(mode_of(fifo)));
}

// F-18 itself: a character device stays one. A pseudo-terminal's /dev/pts/N is a character
// device any user may open (mknod of a /dev/null twin would need root); renamed over, its folder
// (devpts) would refuse the temporary file and the write would fail. The bytes arrive at the
// master side. /dev/null itself is never touched.
TEST(OutputFile, ACharacterDeviceStaysADevice) {
  const int master = posix_openpt(O_RDWR | O_NOCTTY);
  ASSERT_GE(master, 0) << std::strerror(errno);
  ASSERT_EQ(grantpt(master), 0);
  ASSERT_EQ(unlockpt(master), 0);
  const fs::path terminal = ptsname(master);
  ASSERT_TRUE(S_ISCHR(mode_of(terminal)));
  // Raw mode: the terminal passes the bytes as written (no newline translation, no echo).
  const int slave = open(terminal.c_str(), O_RDWR | O_NOCTTY);
  ASSERT_GE(slave, 0);
  termios raw {};
  ASSERT_EQ(tcgetattr(slave, &raw), 0);
  cfmakeraw(&raw);
  ASSERT_EQ(tcsetattr(slave, TCSANOW, &raw), 0);
  EXPECT_EQ(write_file_atomically(terminal, "through the terminal"), "");
  char buffer[64] = {};
  EXPECT_EQ(read(master, buffer, sizeof buffer - 1), 20);
  EXPECT_EQ(std::string(buffer), "through the terminal");
  EXPECT_TRUE(S_ISCHR(mode_of(terminal)));  // checked while open: devpts removes it once closed
  close(slave);
  close(master);
}

// /dev/stdout and /proc/self/fd/N name an open descriptor: written through it, appended.
TEST(OutputFile, ADescriptorsNameIsWrittenThroughTheDescriptor) {
  test::ScratchDir dir;
  const fs::path file = dir.write("redirected.txt", "report\n");
  const int fd = open(file.c_str(), O_WRONLY | O_APPEND);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(write_file_atomically("/proc/self/fd/" + std::to_string(fd), "{}\n"), "");
  close(fd);
  EXPECT_EQ(read_text(file), "report\n{}\n");
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"redirected.txt"});
}

// F-17: writers of one path each have their own temporary file; every write succeeds and the
// file is one of them, whole.
TEST(OutputFile, ConcurrentWritersOfOnePathAllSucceed) {
  test::ScratchDir dir;
  const fs::path file = dir.path() / "t.json";
  std::vector<std::thread> writers;
  std::vector<std::string> errors(4);
  for (int w = 0; w < 4; ++w)
    writers.emplace_back([&, w] {
      const std::string text(100000, char('a' + w));
      for (int i = 0; i < 50 && errors[w].empty(); ++i) errors[w] = write_file_atomically(file, text);
    });
  for (std::thread& t : writers) t.join();
  for (const std::string& e : errors) EXPECT_EQ(e, "");
  const std::string text = read_text(file);
  ASSERT_EQ(text.size(), 100000u);
  EXPECT_EQ(text.find_first_not_of(text[0]), std::string::npos);
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"t.json"});
}

// F-04: `run s.yaml --json s.yaml` replaced the scenario with the report.
TEST(OutputFileCli, AnOutputThatIsAnInputIsRefusedBeforeSimulating) {
  test::ScratchDir dir;
  const fs::path scenario = scenario_copy(dir);
  const std::string before = read_text(scenario);
  const test::CliResult same = test::run_dtsim("run " + scenario.string() + " --json " + scenario.string());
  EXPECT_EQ(same.exit_code, 2) << same.output;
  EXPECT_NE(same.output.find("field '--json': expected an output path that is not one of the command's input files, "
                             "found '" + scenario.string() + "', read as input"),
            std::string::npos)
      << same.output;
  EXPECT_EQ(same.output.find("iteration time"), std::string::npos);  // nothing simulated
  // By another name (a hard link), and an input read after the check (the scenario's calibration).
  fs::create_hard_link(scenario, dir.path() / "h.yaml");
  const fs::path calibration = dir.path() / "c.json";
  fs::copy_file(test::data_dir() / "calibration" / "h100-measured.json", calibration);
  const test::CliResult link = test::run_dtsim("run " + scenario.string() + " --trace " + (dir.path() / "h.yaml").string());
  EXPECT_EQ(link.exit_code, 2) << link.output;
  const test::CliResult late = test::run_dtsim("run " + scenario.string() + " --calibration " + calibration.string() +
                                               " --json " + calibration.string());
  EXPECT_EQ(late.exit_code, 2) << late.output;
  EXPECT_NE(late.output.find("field '--json'"), std::string::npos) << late.output;
  EXPECT_EQ(read_text(scenario), before);
}

TEST(OutputFileCli, DashIsStandardOutputAndTheReportGoesToStandardError) {
  test::ScratchDir dir;
  const fs::path scenario = scenario_copy(dir);
  const fs::path out = dir.path() / "stdout", err = dir.path() / "stderr";
  const std::string command =
      std::string(DTSIM_CLI) + " run " + scenario.string() + " --json - >" + out.string() + " 2>" + err.string();
  EXPECT_EQ(std::system(command.c_str()), 0);
  EXPECT_NE(read_text(err).find("iteration time"), std::string::npos);  // the report, on standard error
  const nlohmann::json report = nlohmann::json::parse(read_text(out));
  EXPECT_GT(report.at("iteration_time_s").get<double>(), 0);
  EXPECT_FALSE(fs::exists("-"));
  const test::CliResult twice = test::run_dtsim("run " + scenario.string() + " --json - --trace -");
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.output.find("field '--trace': expected at most one output written to standard output ('-'), "
                              "found '-', also given to --json"),
            std::string::npos)
      << twice.output;
}
