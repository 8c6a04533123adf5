// The report SVG renders in a real browser: headless Chromium turns it into a PNG of
// the plot's size that holds far more than a blank page, and lays out every SVG's text
// inside its page: the browser's own text extents show nothing clipped, and the legend
// entries show every series whole and apart. Outside CI a machine without chromium skips
// with a message; in CI (CI=true) a missing chromium fails.
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
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

// In CI a missing chromium fails the test; elsewhere the caller skips.
void fail_without_chromium_in_ci() {
  const char* ci = std::getenv("CI");
  if (ci && std::string(ci) == "true") FAIL("chromium is not installed; scripts/test installs it in CI");
}

// What the browser measured of one SVG: every <text> whose box leaves the page, and each
// legend entry's text.
struct TextLayout {
  std::vector<std::string> clipped;  // "text [left top right bottom] of WxH"
  std::vector<std::string> legend;
  std::vector<std::string> overlapping;  // legend entries whose boxes cross another's
  int texts = 0;
};

// The SVG inline in a page whose script measures it after layout (getBoundingClientRect:
// the text as drawn, transforms included) and writes the figures as JSON into the DOM,
// which --dump-dom prints.
TextLayout measure_text(const std::string& chromium, const std::filesystem::path& svg) {
  const auto page = svg.parent_path() / (svg.stem().string() + "-measure.html");
  std::ofstream(page) << "<!DOCTYPE html><html><body style=\"margin:0\">" << read_file(svg) << R"JS(<script>
const svg = document.querySelector('svg'), page = svg.getBoundingClientRect();
const out = {clipped: [], legend: [], overlapping: [], texts: 0};
for (const t of svg.querySelectorAll('text')) {
  const r = t.getBoundingClientRect();
  out.texts++;
  if (r.width === 0 && r.height === 0) continue;
  if (r.left < page.left - 0.5 || r.top < page.top - 0.5 || r.right > page.right + 0.5 || r.bottom > page.bottom + 0.5) {
    out.clipped.push(t.textContent + ' [' + [r.left - page.left, r.top - page.top, r.right - page.left,
                     r.bottom - page.top].map(v => v.toFixed(1)).join(' ') + '] of ' + page.width + 'x' + page.height);
  }
}
const boxes = [];
for (const g of svg.querySelectorAll('.legend-entry')) {
  out.legend.push(g.textContent);
  boxes.push([g.textContent, g.getBoundingClientRect()]);
}
for (let i = 0; i < boxes.length; ++i) {
  for (let j = i + 1; j < boxes.length; ++j) {
    const a = boxes[i][1], b = boxes[j][1];
    if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) {
      out.overlapping.push(boxes[i][0] + ' / ' + boxes[j][0]);
    }
  }
}
const pre = document.createElement('pre');
pre.id = 'measured';
pre.textContent = JSON.stringify(out).replace(/&/g, '\\u0026').replace(/</g, '\\u003c').replace(/>/g, '\\u003e');
document.body.appendChild(pre);
</script></body></html>
)JS";
  const Launch run = run_process({"timeout", "120", chromium, "--headless", "--no-sandbox", "--disable-gpu",
                                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                                  "--no-first-run",
                                  "--user-data-dir=" + (svg.parent_path() / (svg.stem().string() + "-measure-profile")).string(),
                                  "--dump-dom", "file://" + page.string()});
  INFO(run.output);
  const std::string open = "<pre id=\"measured\">";
  const auto begin = run.output.find(open);
  const auto end = run.output.find("</pre>", begin);
  REQUIRE(begin != std::string::npos);
  REQUIRE(end != std::string::npos);
  const auto j = nlohmann::json::parse(run.output.substr(begin + open.size(), end - begin - open.size()));
  TextLayout layout;
  j.at("clipped").get_to(layout.clipped);
  j.at("legend").get_to(layout.legend);
  j.at("overlapping").get_to(layout.overlapping);
  j.at("texts").get_to(layout.texts);
  return layout;
}

// Nothing drawn outside the page; legend entries whole ("..." cuts nothing), apart and
// side by side without overlap.
TextLayout check_text_fits(const std::string& chromium, const std::filesystem::path& svg) {
  const TextLayout layout = measure_text(chromium, svg);
  INFO(svg.filename().string());
  CHECK(layout.texts > 0);
  for (const std::string& c : layout.clipped) {
    INFO("clipped: " << c);
    CHECK(false);
  }
  for (const std::string& o : layout.overlapping) {
    INFO("legend entries overlap: " << o);
    CHECK(false);
  }
  for (const std::string& entry : layout.legend) {
    INFO(entry);
    CHECK_FALSE(entry.empty());
    CHECK(entry.find("...") == std::string::npos);
  }
  CHECK(std::set<std::string>(layout.legend.begin(), layout.legend.end()).size() == layout.legend.size());
  return layout;
}

bool any_contains(const std::vector<std::string>& texts, const std::string& part) {
  return std::any_of(texts.begin(), texts.end(), [&](const std::string& t) { return t.find(part) != std::string::npos; });
}

}  // namespace

TEST_CASE("the report, overlay and compare SVGs render in headless Chromium") {
  const std::string chromium = find_chromium();
  if (chromium.empty()) {
    fail_without_chromium_in_ci();
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

TEST_CASE("no SVG text is clipped, and legends show every series whole and apart") {
  const std::string chromium = find_chromium();
  if (chromium.empty()) {
    fail_without_chromium_in_ci();
    NCCLSWEEP_SKIP("needs chromium (apt-get install chromium): the SVG text was not measured");
  }
  const auto dir = scratch_dir("svg-text");
  std::filesystem::create_directories(dir);
  const auto svg_of = [&](const std::string& name, std::vector<std::string> args) {
    const auto path = dir / (name + ".svg");
    args.insert(args.end(), {"--format", "svg", "-o", path.string()});
    const Launch made = run_ncclsweep(args);
    INFO(name << ": " << made.output);
    REQUIRE(made.status == 0);
    return path;
  };
  const std::string tests = NCCLSWEEP_TEST_DATA "/nccl-tests/";

  // A sweep whose points differ only at the end of a long setting: each legend entry
  // keeps the value that tells QPS=1 from QPS=4.
  const TextLayout sweep = check_text_fits(chromium, svg_of("sweep", {"report", NCCLSWEEP_TEST_DATA "/recommend/qps-grid"}));
  CHECK(any_contains(sweep.legend, "NCCL_IB_QPS_PER_CONNECTION=1]"));
  CHECK(any_contains(sweep.legend, "NCCL_IB_QPS_PER_CONNECTION=4]"));

  // An overlay names its inputs by their files.
  const std::string a = tests + "nccl-tests-all_gather-np2.txt", b = tests + "nccl-tests-all_gather-np2-launch2.txt";
  const TextLayout overlay = check_text_fits(chromium, svg_of("overlay", {"report", a, b}));
  CHECK(any_contains(overlay.legend, "nccl-tests-all_gather-np2.txt"));
  CHECK(any_contains(overlay.legend, "nccl-tests-all_gather-np2-launch2.txt"));
  CHECK_FALSE(any_contains(overlay.legend, "#1"));

  check_text_fits(chromium, svg_of("single", {"report", tests + "nccl-tests-all_gather-g2-8B-8G.txt", "--systems",
                                              NCCLSWEEP_SOURCE_DIR "/configs/systems"}));
  const TextLayout compared = check_text_fits(chromium, svg_of("compare", {"compare", NCCLSWEEP_TEST_DATA "/recommend/qps-grid",
                                                                          NCCLSWEEP_TEST_DATA "/recommend/qps-uneven"}));
  CHECK(any_contains(compared.legend, "NCCL_IB_QPS_PER_CONNECTION=4"));
  // locate's heat map: as wide as its title and host names.
  check_text_fits(chromium, svg_of("locate", {"report", NCCLSWEEP_TEST_DATA "/locate/reference-fast"}));
  // soak's timeline: margins as wide as its axis labels ("2.27e+03 GB/s") and host names.
  check_text_fits(chromium, svg_of("soak", {"report", NCCLSWEEP_TEST_DATA "/real/h200-soak-3m"}));
}
