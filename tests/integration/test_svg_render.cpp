// The report SVG renders in a real browser: headless Chromium turns it into a PNG of
// the plot's size that holds far more than a blank page. Outside CI a machine without
// chromium skips with a message; in CI (CI=true) a missing chromium fails.
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "catch_compat.hpp"
#include "read_file.hpp"
#include "integration/launch.hpp"

using namespace ncclsweep::testing;

namespace {

std::string find_chromium() {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    for (const char* name : {"chromium", "chromium-browser"}) {
      const auto candidate = std::filesystem::path(dir) / name;
      if (std::filesystem::exists(candidate)) return candidate.string();
    }
  }
  return {};
}

std::uint32_t big_endian32(const std::string& bytes, std::size_t at) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(bytes.at(at + i));
  return v;
}

// Renders `svg` to `png` at 960x540 in a fresh profile; returns chromium's output.
Launch render(const std::string& chromium, const std::filesystem::path& svg, const std::filesystem::path& png) {
  return run_process({"timeout", "120", chromium, "--headless", "--no-sandbox", "--disable-gpu",
                      "--disable-background-networking", "--disable-component-update", "--disable-sync",
                      "--no-first-run", "--user-data-dir=" + (png.parent_path() / (png.stem().string() + "-profile")).string(),
                      "--hide-scrollbars", "--window-size=960,540", "--screenshot=" + png.string(),
                      "file://" + svg.string()});
}

}  // namespace

TEST_CASE("the report, overlay and compare SVGs render in headless Chromium") {
  const std::string chromium = find_chromium();
  if (chromium.empty()) {
    const char* ci = std::getenv("CI");
    if (ci && std::string(ci) == "true") FAIL("chromium is not installed; scripts/test installs it in CI");
    NCCLSWEEP_SKIP("needs chromium (apt-get install chromium): the SVG was not rendered");
  }
  const auto dir = scratch_dir("svg-render");
  std::filesystem::create_directories(dir);
  const auto svg = dir / "plot.svg";
  const Launch report = run_ncclsweep(
      {"report", NCCLSWEEP_TEST_DATA "/nccl-tests/nccl-tests-all_gather-g2-8B-8G.txt", "--format", "svg", "-o", svg.string(),
       "--systems", NCCLSWEEP_SOURCE_DIR "/configs/systems"});
  INFO(report.output);
  REQUIRE(report.status == 0);
  // The control: an empty white page of the same size.
  const auto blank = dir / "blank.svg";
  std::ofstream(blank) << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"960\" height=\"540\">"
                          "<rect width=\"100%\" height=\"100%\" fill=\"white\"/></svg>\n";

  const Launch plot_run = render(chromium, svg, dir / "plot.png");
  INFO(plot_run.output);
  const Launch blank_run = render(chromium, blank, dir / "blank.png");
  INFO(blank_run.output);
  const std::string png = read_file(dir / "plot.png");
  const std::string blank_png = read_file(dir / "blank.png");
  REQUIRE(png.size() > 24);
  REQUIRE(blank_png.size() > 24);
  CHECK(png.substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
  CHECK(png.substr(12, 4) == "IHDR");
  CHECK(big_endian32(png, 16) == 960);
  CHECK(big_endian32(png, 20) == 540);
  // Lines, markers and labels compress far worse than a white page.
  CHECK(png.size() > 5 * blank_png.size());
  // The other pages: a PNG, and far from blank.
  const auto check_rendered = [&](const std::filesystem::path& page) {
    const auto page_png = dir / (page.stem().string() + ".png");
    const Launch page_run = render(chromium, page, page_png);
    INFO(page.filename().string() << ": " << page_run.output);
    const std::string bytes = read_file(page_png);
    REQUIRE(bytes.size() > 24);
    CHECK(bytes.substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
    CHECK(bytes.size() > 5 * blank_png.size());
  };

  // compare's SVG too: two launches of nccl-tests, NEW over REFERENCE.
  const auto compared = dir / "compare.svg";
  const Launch compare = run_ncclsweep({"compare", NCCLSWEEP_TEST_DATA "/nccl-tests/nccl-tests-all_gather-np2-launch2.txt",
                                        NCCLSWEEP_TEST_DATA "/nccl-tests/nccl-tests-all_gather-np2.txt", "--format", "svg",
                                        "-o", compared.string()});
  INFO(compare.output);
  REQUIRE(compare.status == 0);
  check_rendered(compared);

  // report's overlay of several inputs.
  const auto overlay = dir / "overlay.svg";
  const Launch overlaid = run_ncclsweep({"report", NCCLSWEEP_TEST_DATA "/nccl-tests/nccl-tests-all_gather-np2.txt",
                                         NCCLSWEEP_TEST_DATA "/nccl-tests/nccl-tests-all_gather-np2-launch2.txt",
                                         NCCLSWEEP_TEST_DATA "/nccl-tests/nccl-tests-all_gather-g2-8B-8G.txt", "--format",
                                         "svg", "-o", overlay.string()});
  INFO(overlaid.output);
  REQUIRE(overlaid.status == 0);
  check_rendered(overlay);
}
