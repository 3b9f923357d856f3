// Ranks of two nodes merged into one file on GPU pid 0 (src/analysis/merged_ranks.cpp): each
// rank's kernels go to its own launches even where the ids collide and the kernels queue longer
// than the clocks are apart, which the nearest launch gets wrong.
#include "analysis/merged_ranks.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "helpers.h"

namespace {

// Rank `pid`'s launches every 1000 us from `t0`, ids 1..n, each kernel `queue_us` after its
// launch on GPU pid `gpu` stream 7, named after the rank (so a part's kernels tell whose they
// are).
std::string rank_events(int pid, int t0, int n, int queue_us, int gpu = 0) {
  std::string ev;
  for (int k = 1; k <= n; ++k) {
    const int t = t0 + 1000 * k;
    const std::string corr = std::to_string(k);
    ev += R"(,{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":)" +
          std::to_string(pid) + R"(,"tid":1,"ts":)" + std::to_string(t) +
          R"(,"dur":4,"args":{"correlation":)" + corr + "}}";
    ev += R"(,{"ph":"X","cat":"kernel","name":"k)" + std::to_string(pid) + R"(","pid":)" +
          std::to_string(gpu) + R"(,"tid":7,"ts":)" + std::to_string(t + queue_us) +
          R"(,"dur":10,"args":{"stream":7,"device":)" + std::to_string(gpu) + R"(,"correlation":)" +
          corr + "}}";
  }
  return ev;
}

std::string doc(const std::string& events) {
  return "[" + events.substr(1) + "]";
}

size_t kernels_named(const ks::Trace& t, const std::string& name) {
  size_t n = 0;
  for (uint32_t i = 0; i < t.slices.size(); ++i)
    if (t.slices.kind[i] == ks::SliceKind::kKernel && t.str(t.slices.name[i]) == name) ++n;
  return n;
}

}  // namespace

TEST_CASE("merged ranks: each rank's kernels go to its own launches", "[analysis][merged_ranks]") {
  // Rank 20's clock runs 30 us ahead; kernels wait 100 us in the queue, so rank 10's kernel is
  // nearer to rank 20's launch (70 us) than to its own (100 us).
  auto t = ks_test::load(doc(rank_events(10, 100000, 40, 100) + rank_events(20, 99970, 40, 100)));
  REQUIRE(t);
  const auto parts = ks::split_merged_ranks(*t);
  REQUIRE(parts.size() == 2);
  CHECK(parts[0]->facts.source_name.find(" pid 10") != std::string::npos);
  CHECK(parts[1]->facts.source_name.find(" pid 20") != std::string::npos);
  CHECK(kernels_named(*parts[0], "k10") == 40);
  CHECK(kernels_named(*parts[0], "k20") == 0);
  CHECK(kernels_named(*parts[1], "k20") == 40);
  CHECK(kernels_named(*parts[1], "k10") == 0);
  CHECK(parts[1]->distributed.rank == 1);
  CHECK(parts[1]->distributed.world_size == 2);
  CHECK(parts[0]->processes.size() == 2);  // its CPU process and the GPU
  // The page reads each rank in a worker of its own: the same ranks, the same parts.
  CHECK(ks::merged_rank_pids(*t) == std::vector<std::string>{"10", "20"});
  for (size_t r = 0; r < parts.size(); ++r) {
    const auto alone = ks::merged_rank_part(*t, r);
    REQUIRE(alone);
    CHECK(alone->facts.source_name == parts[r]->facts.source_name);
    CHECK(alone->slices.ts == parts[r]->slices.ts);
    CHECK(alone->slices.name == parts[r]->slices.name);
    CHECK(alone->flows.size() == parts[r]->flows.size());
  }
  CHECK(ks::merged_rank_part(*t, 2) == nullptr);
}

TEST_CASE("merged ranks: a rank's part counts its own events and says whose diagnostics",
          "[analysis][merged_ranks]") {
  // Each rank: a process_name event, 40 launches and 40 kernels; the shared stream's kernels
  // overlap (rank 20's 10 us kernels 30 us before rank 10's, but queued 100 us: none nests).
  const std::string meta = R"(,{"ph":"M","name":"process_name","pid":20,"args":{"name":"b"}})";
  auto t =
      ks_test::load(doc(rank_events(10, 100000, 40, 100) + rank_events(20, 99995, 40, 100) + meta));
  REQUIRE(t);
  CHECK(t->facts.events_total == 161);
  REQUIRE(t->diagnostics.count(ks::Diag::kPartialOverlap) > 0);
  const auto parts = ks::split_merged_ranks(*t);
  REQUIRE(parts.size() == 2);
  CHECK(parts[0]->facts.events_total == 80);
  CHECK(parts[0]->facts.events_by_phase.at("X") == 80);
  CHECK(parts[0]->facts.events_by_phase.at("M") == 0);
  CHECK(parts[1]->facts.events_total == 81);
  CHECK(parts[1]->facts.events_by_phase.at("M") == 1);
  CHECK(parts[0]->facts.categories.at("kernel") == 40);
  // Rank 10's part starts at its first launch, not at rank 20's earlier one.
  CHECK(parts[0]->facts.start_ns == 101000 * 1000LL);
  CHECK(parts[1]->facts.start_ns == 100995 * 1000LL);
  // Its own stream no longer overlaps; what the importer counted over the file says so.
  CHECK(parts[0]->diagnostics.count(ks::Diag::kPartialOverlap) == 0);
  if (t->diagnostics.count(ks::Diag::kTimestampsOutOfOrder)) {
    CHECK(parts[0]->diagnostics.message(ks::Diag::kTimestampsOutOfOrder).find("whole file") !=
          std::string::npos);
  }
}

TEST_CASE("merged ranks: ranks that kept GPU pids of their own are split",
          "[analysis][merged_ranks]") {
  // Two ranks' traces concatenated, each rank's GPU on its own pid (0 and 1), ids colliding:
  // process 10 launches only onto GPU pid 0, process 20 only onto GPU pid 1.
  auto t =
      ks_test::load(doc(rank_events(10, 100000, 40, 100, 0) + rank_events(20, 99970, 40, 100, 1)));
  REQUIRE(t);
  const auto parts = ks::split_merged_ranks(*t);
  REQUIRE(parts.size() == 2);
  CHECK(kernels_named(*parts[0], "k10") == 40);
  CHECK(kernels_named(*parts[0], "k20") == 0);
  CHECK(kernels_named(*parts[1], "k20") == 40);
  CHECK(parts[0]->processes.size() == 2);  // its CPU process and its GPU
  CHECK(parts[1]->processes.size() == 2);
  // One process launching onto both GPU pids is one rank (one process driving two GPUs).
  std::string both = rank_events(10, 100000, 40, 100, 0);
  std::string second = rank_events(10, 100500, 40, 100, 1);
  // Its own ids do not repeat: the second GPU's launches count on from 41.
  for (int k = 40; k >= 1; --k) {
    const std::string from = "\"correlation\":" + std::to_string(k) + "}";
    const std::string to = "\"correlation\":" + std::to_string(k + 40) + "}";
    for (size_t at = second.find(from); at != std::string::npos; at = second.find(from, at + 1))
      second.replace(at, from.size(), to);
  }
  auto one = ks_test::load(doc(both + second));
  REQUIRE(one);
  CHECK(ks::split_merged_ranks(*one).empty());
}

TEST_CASE("merged ranks: one rank, or a stray second launcher, are not split",
          "[analysis][merged_ranks]") {
  auto one = ks_test::load(doc(rank_events(10, 100000, 40, 100)));
  REQUIRE(one);
  CHECK(ks::split_merged_ranks(*one).empty());
  CHECK(ks::merged_rank_pids(*one).empty());
  CHECK(ks::merged_rank_part(*one, 0) == nullptr);
  // A second process with a few launches of the ids (a tenth of the main launcher's: 3 of 40)
  // is a stray caller, not a rank.
  auto stray =
      ks_test::load(doc(rank_events(10, 100000, 40, 100) + rank_events(20, 99970, 3, 100)));
  REQUIRE(stray);
  CHECK(ks::split_merged_ranks(*stray).empty());
}

TEST_CASE("merged ranks: a diagnostic whose events are known is the part's own",
          "[analysis][merged_ranks]") {
  // Rank 20 alone: a negative dur, a B never closed, a flow start without its finish. Both
  // ranks: an X without dur (met twice: only the first offset is kept, so whose the second is
  // cannot be known and the note stays).
  const std::string r20 =
      R"(,{"ph":"X","cat":"cpu_op","name":"neg","pid":20,"tid":1,"ts":150000,"dur":-3})"
      R"(,{"ph":"B","cat":"user_annotation","name":"open","pid":20,"tid":1,"ts":150100})"
      R"(,{"ph":"s","cat":"ac2g","name":"f","id":99,"pid":20,"tid":1,"ts":150200})"
      R"(,{"ph":"X","cat":"cpu_op","name":"nodur","pid":20,"tid":1,"ts":150300})";
  const std::string r10 =
      R"(,{"ph":"X","cat":"cpu_op","name":"nodur","pid":10,"tid":1,"ts":150300})";
  auto t = ks_test::load(
      doc(rank_events(10, 100000, 40, 100) + r10 + rank_events(20, 100000, 40, 100, 1) + r20));
  REQUIRE(t);
  REQUIRE(t->diagnostics.count(ks::Diag::kNegativeDuration) == 1);
  REQUIRE(t->diagnostics.count(ks::Diag::kUnclosedBegin) == 1);
  REQUIRE(t->diagnostics.count(ks::Diag::kFlowWithoutEnd) == 1);
  REQUIRE(t->diagnostics.count(ks::Diag::kCompleteWithoutDur) == 2);
  const auto parts = ks::split_merged_ranks(*t);
  REQUIRE(parts.size() == 2);
  const ks::Diagnostics& d10 = parts[0]->diagnostics;
  const ks::Diagnostics& d20 = parts[1]->diagnostics;
  CHECK(d10.count(ks::Diag::kNegativeDuration) == 0);
  CHECK(d10.count(ks::Diag::kUnclosedBegin) == 0);
  CHECK(d10.count(ks::Diag::kFlowWithoutEnd) == 0);
  CHECK(parts[0]->facts.unclosed_offsets.empty());
  for (ks::Diag kind :
       {ks::Diag::kNegativeDuration, ks::Diag::kUnclosedBegin, ks::Diag::kFlowWithoutEnd}) {
    CHECK(d20.count(kind) == 1);
    CHECK(d20.message(kind).find("whole file") == std::string::npos);
  }
  CHECK(d20.get(ks::Diag::kNegativeDuration).first_offset ==
        t->diagnostics.get(ks::Diag::kNegativeDuration).first_offset);
  CHECK(parts[1]->facts.unclosed_offsets == t->facts.unclosed_offsets);
  for (const ks::Diagnostics* d : {&d10, &d20})
    CHECK(d->message(ks::Diag::kCompleteWithoutDur).find("whole file") != std::string::npos);
}

TEST_CASE("merged ranks: a part keeps only the strings it uses", "[analysis][merged_ranks]") {
  // Every kernel of a distinct name: a part that copied the file's whole pool held both ranks'
  // names, ranks x names in all (256 ranks of a 57 MB file with 128,000 names: 9.2 GB).
  std::string ev;
  for (int pid : {10, 20}) {
    for (int k = 1; k <= 300; ++k) {
      const std::string t = std::to_string(100000 + 1000 * k + pid), corr = std::to_string(k);
      ev += R"(,{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":)" +
            std::to_string(pid) + R"(,"tid":1,"ts":)" + t + R"(,"dur":4,"args":{"correlation":)" +
            corr + "}}";
      ev += R"(,{"ph":"X","cat":"kernel","name":"k)" + std::to_string(pid) + "_" + corr +
            R"(","pid":0,"tid":7,"ts":)" + t + R"(.5,"dur":1,"args":{"stream":7,"device":0,)" +
            R"("correlation":)" + corr + "}}";
    }
  }
  auto t = ks_test::load(doc(ev));
  REQUIRE(t);
  REQUIRE(t->strings.size() > 600);
  const auto parts = ks::split_merged_ranks(*t);
  REQUIRE(parts.size() == 2);
  for (size_t r = 0; r < 2; ++r) {
    const ks::Trace& p = *parts[r];
    CHECK(p.strings.size() < 320);  // its 300 names, its pids, tids and categories
    const std::string mine = r == 0 ? "k10_" : "k20_", other = r == 0 ? "k20_" : "k10_";
    size_t named = 0;
    for (uint32_t i = 0; i < p.slices.size(); ++i) {
      if (p.slices.kind[i] != ks::SliceKind::kKernel) continue;
      CHECK(p.str(p.slices.name[i]).rfind(mine, 0) == 0);
      ++named;
    }
    CHECK(named == 300);
    CHECK(p.strings.find(other + "1") == ks::StringPool::kMissing);
    CHECK(p.str(p.processes[0].pid_text) != "");
  }
}

TEST_CASE("merged ranks: the file's unknown phases and shared categories stay bounded per part",
          "[analysis][merged_ranks]") {
  // Events of distinct unknown phases and categories have no row and no rank: each part held
  // them all (ranks x distinct texts: 200 ranks and 2,000 of 1 KiB, a 4.3 MB file, 2.8 GB).
  std::string ev;
  const int ranks = 20, odd = 300;
  for (int r = 0; r < ranks; ++r) ev += rank_events(100 + r, 100000 + 20 * r, 2, 5);
  for (int i = 0; i < odd; ++i)
    ev += R"(,{"ph":"odd_)" + std::to_string(i) + R"(","cat":"c_)" + std::to_string(i) +
          R"(","name":"odd","pid":100,"tid":1,"ts":100000})";
  ev += R"(,{"ph":"Q","name":"q","pid":100,"tid":1,"ts":100000})";
  auto t = ks_test::load(doc(ev));
  REQUIRE(t);
  REQUIRE(t->facts.events_by_phase.size() == static_cast<size_t>(odd + 2));
  const auto parts = ks::split_merged_ranks(*t);
  REQUIRE(parts.size() == static_cast<size_t>(ranks));
  for (const auto& part : parts) {
    const ks::TraceFacts& f = part->facts;
    // X, and the one-character unknown phase (at most 256 such keys); its 4 X events and Q.
    CHECK(f.events_by_phase.size() == 2);
    CHECK(f.events_by_phase.at("Q") == 1);
    CHECK(f.events_total == 5);
    // Its launches' and kernels', and 16 of the file's shared categories ("" of Q among them).
    CHECK(f.categories.size() == 18);
    CHECK(part->diagnostics.count(ks::Diag::kUnknownPhase) == static_cast<uint64_t>(odd + 1));
  }
}

TEST_CASE("merged ranks: a part counts only its own categories", "[analysis][merged_ranks]") {
  // 40 ranks, each with 25 categories of its own on its CPU ops, and a counter (C) event and an
  // empty-category op each: a part that copied the file's category counts and took off the cut's
  // held all 1,000 (most at 0), ranks x categories in all (10^4 ranks x 10^3 categories: 10^7).
  std::string ev;
  const int ranks = 40, cats = 25;
  for (int r = 0; r < ranks; ++r) {
    const int pid = 100 + r;
    ev += rank_events(pid, 100000 + 20 * r, 2, 5);  // kernels one after another
    for (int c = 0; c < cats; ++c)
      ev += R"(,{"ph":"X","cat":"cat_)" + std::to_string(pid) + "_" + std::to_string(c) +
            R"(","name":"op","pid":)" + std::to_string(pid) + R"(,"tid":1,"ts":)" +
            std::to_string(90000 + c * 10) + R"(,"dur":5})";
    ev += R"(,{"ph":"X","name":"no_cat","pid":)" + std::to_string(pid) +
          R"(,"tid":1,"ts":89000,"dur":5})";
  }
  ev += R"(,{"ph":"C","cat":"memory","name":"mem","pid":0,"ts":100000,"args":{"v":1}})";
  auto t = ks_test::load(doc(ev));
  REQUIRE(t);
  REQUIRE(t->facts.categories.size() == static_cast<size_t>(ranks * cats + 4));
  const auto parts = ks::split_merged_ranks(*t);
  REQUIRE(parts.size() == static_cast<size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    const auto& c = parts[static_cast<size_t>(r)]->facts.categories;
    // Its 25, the launches' and kernels', its empty category, and the file's C event (no row).
    CHECK(c.size() == static_cast<size_t>(cats + 4));
    CHECK(c.at("cat_" + std::to_string(100 + r) + "_0") == 1);
    CHECK(c.count("cat_" + std::to_string(100 + (r + 1) % ranks) + "_0") == 0);
    CHECK(c.at("kernel") == 2);
    CHECK(c.at("cuda_runtime") == 2);
    CHECK(c.at("") == 1);  // its one op without a category, not all ranks'
    CHECK(c.at("memory") == 1);
  }
}
