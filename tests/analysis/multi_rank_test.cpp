// Many ranks compared: rank identity, collective matching by order of issue, the straggler
// rules on the planted straggler sets (examples/pathologies/gpu/straggler_*), silence on the
// clean set, the 8-rank DLRM job from ../shared, and the digest's JSON round trip.
#include <catch2/catch.hpp>

#include "analysis/multi_rank.h"
#include "corpus/json_get.h"
#include "corpus/shared_traces.h"
#include "findings/multi_rank_rules.h"
#include "helpers.h"
#include "report/multi_rank_report.h"
#include "report/rank_digest_json.h"
#include "source_dir.h"

using namespace ks_test;

namespace {

// A rank with one step [0, 1000) us holding `n` all-reduce kernels of the given durations (us)
// and one compute kernel of `compute_us`.
// `collectives`, when given, names each kernel's collective (Kineto's "Collective name" arg).
// `groups`, when given, names each kernel's process group ("Process Group Name"); `extra`, more
// args per kernel (raw JSON members, "" for none).
std::string rank_trace(int rank, const std::vector<int>& comm_us, bool with_rank = true,
                       const std::vector<std::string>& collectives = {},
                       const std::vector<std::string>& groups = {},
                       const std::vector<std::string>& extra = {}, int compute_us = 300) {
  std::string t = "{";
  if (with_rank)
    t += "\"distributedInfo\": {\"rank\": " + std::to_string(rank) + ", \"world_size\": 4},";
  t += "\"traceEvents\": [";
  t +=
      R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#3","pid":1,"tid":1,"ts":0,"dur":1000})";
  int ts = 10;
  for (size_t i = 0; i < comm_us.size(); ++i) {
    const int d = comm_us[i];
    std::string args = i < collectives.size() ? R"("stream":20,"Collective name":")" +
                                                    collectives[i] + R"(","Group size":2)"
                                              : R"("stream":20)";
    if (i < groups.size()) args += R"(,"Process Group Name":")" + groups[i] + "\"";
    if (i < extra.size() && !extra[i].empty()) args += "," + extra[i];
    t +=
        R"(,{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_f32","pid":0,"tid":20,"ts":)" +
        std::to_string(ts) + ",\"dur\":" + std::to_string(d) + ",\"args\":{" + args + "}}";
    ts += d + 50;
  }
  t += R"(,{"ph":"X","cat":"kernel","name":"sm90_xmma_gemm","pid":0,"tid":7,"ts":5,"dur":)" +
       std::to_string(compute_us) + R"(,"args":{"stream":7}})";
  return t + "]}";
}

ks::RankDigest digest_of(const ks::Trace& t, const std::string& file, size_t index) {
  ks::Report r = ks::build_report(t, {});
  return ks::make_rank_digest(t, r.analyses, file, ks::identify_rank(t, file, index));
}

std::vector<ks::RankDigest> load_rank_dir(const std::string& dir, size_t ranks) {
  std::vector<ks::RankDigest> out;
  for (size_t k = 0; k < ranks; ++k) {
    std::string file = "rank-" + std::to_string(k) + ".json.gz";
    Loaded l = load_file(dir + "/" + file);
    REQUIRE(l.ok);
    out.push_back(digest_of(*l.trace, file, k));
  }
  return out;
}

const ks::Finding* find(const std::vector<ks::Finding>& f, const std::string& id) {
  for (const ks::Finding& x : f)
    if (x.id == id) return &x;
  return nullptr;
}

std::string pathology(const std::string& name) {
  return ks_test::source_dir() + "/examples/pathologies/gpu/" + name;
}

}  // namespace

TEST_CASE("A rank comes from distributedInfo, else the file name, else the load order",
          "[analysis][ranks]") {
  CHECK(ks::rank_from_file_name("rank-3.json.gz") == 3);
  CHECK(ks::rank_from_file_name("trace_rank12.pt.trace.json") == 12);
  CHECK(ks::rank_from_file_name("worker7_step_12.1694128201553.pt.trace.json") == 7);
  CHECK(ks::rank_from_file_name("Rank_2.json") == 2);
  CHECK(ks::rank_from_file_name("ranking.json") == -1);
  CHECK(ks::rank_from_file_name("trace.json") == -1);

  auto with = load(rank_trace(2, {100}));
  auto without = load(rank_trace(2, {100}, false));
  SECTION("distributedInfo wins over the file name") {
    ks::RankIdentity id = ks::identify_rank(*with, "rank-5.json", 0);
    CHECK(id.rank == 2);
    CHECK(id.source == ks::RankSource::kDistributedInfo);
  }
  SECTION("then the file name") {
    ks::RankIdentity id = ks::identify_rank(*without, "rank-5.json", 0);
    CHECK(id.rank == 5);
    CHECK(id.source == ks::RankSource::kFileName);
  }
  SECTION("then the load order") {
    ks::RankIdentity id = ks::identify_rank(*without, "trace.json", 4);
    CHECK(id.rank == 4);
    CHECK(id.source == ks::RankSource::kLoadOrder);
  }
}

TEST_CASE("Collectives match by order of issue: transfer is the shortest, the rest is waiting",
          "[analysis][ranks]") {
  // Rank 0 waits on both all-reduces; rank 1 arrives last (shortest kernels); rank 2 in between.
  auto r0 = load(rank_trace(0, {300, 200}));
  auto r1 = load(rank_trace(1, {100, 50}));
  auto r2 = load(rank_trace(2, {150, 120}));
  // Loaded out of rank order on purpose: the comparison sorts by rank.
  ks::MultiRankResult m =
      ks::compare_ranks({digest_of(*r2, "c", 0), digest_of(*r0, "a", 1), digest_of(*r1, "b", 2)});
  REQUIRE(m.ranks.size() == 3);
  CHECK(m.ranks[0].rank == 0);
  CHECK(m.counts_match);
  CHECK(m.names_match);
  REQUIRE(m.collectives.size() == 2);
  CHECK(m.collectives[0].transfer_ns == 100000);
  CHECK(m.collectives[1].transfer_ns == 50000);
  // rank 0: (300 - 100) + (200 - 50) = 350 us waiting; rank 1: 0; rank 2: 50 + 70 = 120.
  CHECK(m.ranks[0].wait_ns == 350000);
  CHECK(m.ranks[1].wait_ns == 0);
  CHECK(m.ranks[2].wait_ns == 120000);
  CHECK(m.ranks[1].transfer_ns == 150000);
  // All waiting happened in step 3, the only one.
  REQUIRE(m.ranks[0].step_wait_ns.size() == 1);
  CHECK(m.ranks[0].step_wait_ns[0] == 350000);
}

TEST_CASE("Pipeline send/recv waits name no straggler; the same waits in all-reduces do",
          "[analysis][ranks][findings]") {
  // Two pipeline stages, equal work: stage 0 sends its activations and then waits 400 us in its
  // recv for the backward; stage 1 waits 100 us in its recv for the activations, then sends.
  // Each stage's wait is its place in the pipeline (the bubble), not another rank's slowness.
  auto s0 = load(rank_trace(0, {50, 450}, true, {"send", "recv"}));
  auto s1 = load(rank_trace(1, {150, 50}, true, {"recv", "send"}));
  ks::MultiRankReport m = ks::combine_ranks({digest_of(*s0, "a", 0), digest_of(*s1, "b", 1)});
  REQUIRE(m.result.ranks.size() == 2);
  CHECK(m.result.ranks[0].p2p_sum_ns == 500000);
  CHECK(find(m.findings, "ranks.straggler") == nullptr);
  // The control: the same durations in all-reduces, where every rank waits for the last.
  auto a0 = load(rank_trace(0, {50, 450}, true, {"allreduce", "allreduce"}));
  auto a1 = load(rank_trace(1, {150, 50}, true, {"allreduce", "allreduce"}));
  m = ks::combine_ranks({digest_of(*a0, "a", 0), digest_of(*a1, "b", 1)});
  const ks::Finding* f = find(m.findings, "ranks.straggler");
  REQUIRE(f);
  CHECK(f->title.rfind("Rank 1 is the straggler", 0) == 0);
  CHECK(ks::is_point_to_point("recvAnySource"));
  CHECK_FALSE(ks::is_point_to_point("sendrecv"));  // NCCL's all-to-all kernel, named without args
}

TEST_CASE("A pipeline stage that computes longer than the others is the slowest stage",
          "[analysis][ranks][findings]") {
  // Three stages sending and receiving: stage 1 computes 600 us a step, the others 300 us.
  // Nothing in the send/recv times names it (the straggler rule leaves them out); its compute
  // does, as the pipeline's slowest stage, and not also as a compute skew.
  auto stage = [](int k, int compute) {
    return load(rank_trace(k, {150, 50}, true, {"recv", "send"}, {}, {}, compute));
  };
  auto s0 = stage(0, 300), s1 = stage(1, 600), s2 = stage(2, 300);
  ks::MultiRankReport m =
      ks::combine_ranks({digest_of(*s0, "a", 0), digest_of(*s1, "b", 1), digest_of(*s2, "c", 2)});
  const ks::Finding* f = find(m.findings, "ranks.slow_pipeline_stage");
  REQUIRE(f != nullptr);
  CHECK(f->title ==
        "Rank 1 is the pipeline's slowest stage: 2.00x the other stages' GPU compute per step "
        "(600.0 \u00b5s vs 300.0 \u00b5s)");
  CHECK(find(m.findings, "ranks.compute_skew") == nullptr);
  CHECK(find(m.findings, "ranks.straggler") == nullptr);
  // Two replicas of a 2-stage pipeline (PP x DP): stage 1 slow on both, ranks 1 and 3. The
  // slowest named, the other in slow_ranks, neither also as a compute skew.
  auto p0 = stage(0, 300), p1 = stage(1, 600), p2 = stage(2, 300), p3 = stage(3, 600);
  m = ks::combine_ranks({digest_of(*p0, "a", 0), digest_of(*p1, "b", 1), digest_of(*p2, "c", 2),
                         digest_of(*p3, "d", 3)});
  f = find(m.findings, "ranks.slow_pipeline_stage");
  REQUIRE(f != nullptr);
  CHECK(f->title.rfind("Rank 1 is the pipeline's slowest stage", 0) == 0);
  const ks::Evidence* slow = nullptr;
  for (const ks::Evidence& e : f->evidence)
    if (e.key == "slow_ranks") slow = &e;
  REQUIRE(slow != nullptr);
  CHECK(slow->text == "1, 3");
  CHECK(find(m.findings, "ranks.compute_skew") == nullptr);
  // The stages alike: nothing.
  auto e1 = stage(1, 330);
  m = ks::combine_ranks({digest_of(*s0, "a", 0), digest_of(*e1, "b", 1), digest_of(*s2, "c", 2)});
  CHECK(find(m.findings, "ranks.slow_pipeline_stage") == nullptr);
  // Without sends and receives it is no pipeline: the compute skew says it.
  auto a0 = load(rank_trace(0, {150, 50}, true, {"allreduce", "allreduce"}, {}, {}, 300));
  auto a1 = load(rank_trace(1, {150, 50}, true, {"allreduce", "allreduce"}, {}, {}, 600));
  auto a2 = load(rank_trace(2, {150, 50}, true, {"allreduce", "allreduce"}, {}, {}, 300));
  m = ks::combine_ranks({digest_of(*a0, "a", 0), digest_of(*a1, "b", 1), digest_of(*a2, "c", 2)});
  CHECK(find(m.findings, "ranks.slow_pipeline_stage") == nullptr);
  CHECK(find(m.findings, "ranks.compute_skew") != nullptr);
}

TEST_CASE("Pipeline stages send and receive different counts: no collective mismatch",
          "[analysis][ranks][findings]") {
  // Three stages: the first and last talk to one neighbour (a send and a recv), the middle one
  // to both (two of each). Sends and receives go to one peer and are not matched across ranks.
  auto s0 = load(rank_trace(0, {50, 450}, true, {"send", "recv"}));
  auto s1 = load(rank_trace(1, {150, 50, 60, 300}, true, {"recv", "send", "recv", "send"}));
  auto s2 = load(rank_trace(2, {250, 50}, true, {"recv", "send"}));
  ks::MultiRankReport m =
      ks::combine_ranks({digest_of(*s0, "a", 0), digest_of(*s1, "b", 1), digest_of(*s2, "c", 2)});
  CHECK(m.result.counts_match);
  CHECK(m.result.collectives.empty());
  CHECK(m.result.ranks[1].wait_ns == 0);
  CHECK(find(m.findings, "ranks.collective_mismatch") == nullptr);
  // The control: the same counts in all-reduces are a mismatch.
  auto a0 = load(rank_trace(0, {50, 450}, true, {"allreduce", "allreduce"}));
  auto a1 = load(rank_trace(1, {150, 50, 60, 300}, true,
                            {"allreduce", "allreduce", "allreduce", "allreduce"}));
  auto a2 = load(rank_trace(2, {250, 50}, true, {"allreduce", "allreduce"}));
  m = ks::combine_ranks({digest_of(*a0, "a", 0), digest_of(*a1, "b", 1), digest_of(*a2, "c", 2)});
  CHECK_FALSE(m.result.counts_match);
  CHECK(find(m.findings, "ranks.collective_mismatch") != nullptr);
}

TEST_CASE("A send is matched with its peer's receive: the earlier side waits",
          "[analysis][ranks][findings]") {
  // Two stages: 0 sends to 1 (300 us, 1's receive 100 us: 0 waited 200 us for 1 to post it),
  // then 1 sends back to 0 (400 us, 0's receive 50 us: 1 waited 350 us).
  auto s0 = load(
      rank_trace(0, {300, 50}, true, {"send", "recv"}, {}, {R"("Dst Rank":1)", R"("Src Rank":1)"}));
  auto s1 = load(rank_trace(1, {100, 400}, true, {"recv", "send"}, {},
                            {R"("Src Rank":0)", R"("Dst Rank":0)"}));
  ks::RankDigest d0 = digest_of(*s0, "a", 0), d1 = digest_of(*s1, "b", 1);
  CHECK(d0.comm[0].peer == 1);
  CHECK(d1.comm[0].peer == 0);
  ks::MultiRankReport m = ks::combine_ranks({d0, d1});
  const ks::MultiRankResult& r = m.result;
  CHECK(r.p2p_pairs == 2);
  CHECK(r.p2p_unmatched == 0);
  CHECK(r.counts_match);
  REQUIRE(r.collectives.size() == 2);
  CHECK(r.collectives[0].channel == "p2p 0->1");
  CHECK(r.collectives[0].dur_ns == std::vector<int64_t>{300000, 100000});
  CHECK(r.collectives[0].transfer_ns == 100000);
  CHECK(r.collectives[1].channel == "p2p 1->0");
  CHECK(r.ranks[0].wait_ns == 200000);
  CHECK(r.ranks[1].wait_ns == 350000);
  CHECK(r.ranks[1].step_wait_ns == std::vector<int64_t>{350000});
  CHECK(r.ranks[0].transfer_ns == 150000);
  // The straggler rule still leaves them out: no straggler from a pipeline's bubbles.
  CHECK(find(m.findings, "ranks.straggler") == nullptr);
  // The digest's JSON keeps the peers (the page compares ranks from digests).
  ks::RankDigest back;
  REQUIRE(ks::parse_rank_digest_json(ks::rank_digest_json(d1), &back));
  CHECK(back.comm[1].peer == 0);
  CHECK(ks::rank_digest_json(back) == ks::rank_digest_json(d1));

  // Without peers (Kineto before PyTorch 2.4) nothing is guessed: not measured.
  auto n0 = load(rank_trace(0, {300, 50}, true, {"send", "recv"}));
  auto n1 = load(rank_trace(1, {100, 400}, true, {"recv", "send"}));
  m = ks::combine_ranks({digest_of(*n0, "a", 0), digest_of(*n1, "b", 1)});
  CHECK(m.result.p2p_pairs == 0);
  CHECK(m.result.p2p_unmatched == 4);
  CHECK(m.result.collectives.empty());
  CHECK(m.result.ranks[0].wait_ns == 0);
}

TEST_CASE("A straggler among groups that each hold some of the ranks (tensor x data parallel)",
          "[analysis][ranks][findings]") {
  // 2x2: tensor-parallel groups {0,1} "1" and {2,3} "2", data-parallel {0,2} "3" and {1,3} "4".
  // Rank 1 is slow: its peers wait for it, and the others for them. No group holds every rank:
  // each is compared among its own members; the straggler is the rank with the shortest
  // collectives.
  auto rank = [](int k, const std::vector<int>& us) {
    const std::string tp = std::to_string(1 + k / 2), dp = std::to_string(3 + k % 2);
    return load(rank_trace(k, us, true, {"allreduce", "allreduce"}, {tp, dp}));
  };
  auto r0 = rank(0, {400, 300}), r1 = rank(1, {50, 40}), r2 = rank(2, {300, 400}),
       r3 = rank(3, {350, 350});
  ks::MultiRankReport m = ks::combine_ranks({digest_of(*r0, "a", 0), digest_of(*r1, "b", 1),
                                             digest_of(*r2, "c", 2), digest_of(*r3, "d", 3)});
  CHECK(find(m.findings, "ranks.collective_mismatch") == nullptr);
  CHECK(m.result.counts_match);
  // One row per group, durations on its members only: "1" {0,1} 400/50, "2" {2,3} 300/350,
  // "3" {0,2} 300/400, "4" {1,3} 40/350.
  REQUIRE(m.result.collectives.size() == 4);
  for (const ks::CollectiveRow& row : m.result.collectives) {
    const int g = std::stoi(row.channel.substr(std::string("group ").size()));
    for (int k = 0; k < 4; ++k) {
      const bool member = g <= 2 ? k / 2 == g - 1 : k % 2 == g - 3;
      CHECK((row.dur_ns[static_cast<size_t>(k)] != ks::kNoValue) == member);
    }
  }
  CHECK(m.result.ranks[0].wait_ns == 350000);  // for rank 1 in "1"
  CHECK(m.result.ranks[1].wait_ns == 0);
  CHECK(m.result.ranks[2].wait_ns == 100000);  // for rank 0 in "3"
  CHECK(m.result.ranks[3].wait_ns == 360000);  // for rank 2 in "2" (50), rank 1 in "4" (310)
  CHECK(m.result.ranks[3].step_wait_ns == std::vector<int64_t>{360000});
  const ks::Finding* f = find(m.findings, "ranks.straggler");
  REQUIRE(f);
  CHECK(f->title.rfind("Rank 1 is the straggler", 0) == 0);
  // The JSON: null for a rank outside the row's group.
  std::string compact;  // the JSON is indented: compared without its white space
  for (char ch : ks::multi_rank_json(m, {}))
    if (ch != ' ' && ch != '\n') compact += ch;
  CHECK(compact.find("\"dur_us\":[400.000,50.000,null,null]") != std::string::npos);
}

TEST_CASE("A group of some of the ranks whose members issue different counts is a mismatch",
          "[analysis][ranks][findings]") {
  // Group "1" holds ranks 0 and 1, "2" ranks 2 and 3; rank 1 issued one collective of "1" less.
  auto r0 = load(rank_trace(0, {100, 100}, true, {"allreduce", "allreduce"}, {"1", "1"}));
  auto r1 = load(rank_trace(1, {100}, true, {"allreduce"}, {"1"}));
  auto r2 = load(rank_trace(2, {100}, true, {"allreduce"}, {"2"}));
  auto r3 = load(rank_trace(3, {100}, true, {"allreduce"}, {"2"}));
  ks::MultiRankReport m = ks::combine_ranks({digest_of(*r0, "a", 0), digest_of(*r1, "b", 1),
                                             digest_of(*r2, "c", 2), digest_of(*r3, "d", 3)});
  CHECK_FALSE(m.result.counts_match);
  CHECK(m.result.mismatch_channel == "group 1");
  CHECK(find(m.findings, "ranks.collective_mismatch") != nullptr);
}

TEST_CASE("Different collective counts between ranks are a critical finding",
          "[analysis][ranks][findings]") {
  auto r0 = load(rank_trace(0, {100, 100}));
  auto r1 = load(rank_trace(1, {100}));
  ks::MultiRankReport m = ks::combine_ranks({digest_of(*r0, "a", 0), digest_of(*r1, "b", 1)});
  CHECK_FALSE(m.result.counts_match);
  const ks::Finding* f = find(m.findings, "ranks.collective_mismatch");
  REQUIRE(f);
  CHECK(f->severity == ks::Severity::kCritical);
  CHECK(f->title == "Ranks ran different numbers of collectives (1 to 2) in stream 20");
  CHECK(m.findings.front().id == "ranks.collective_mismatch");  // most severe first
}

TEST_CASE("A rank digest survives its JSON round trip", "[analysis][ranks][report]") {
  auto r0 = load(rank_trace(0, {300, 200}));
  ks::RankDigest d = digest_of(*r0, "rank-0.json", 0);
  ks::RankDigest back;
  REQUIRE(ks::parse_rank_digest_json(ks::rank_digest_json(d), &back));
  CHECK(ks::rank_digest_json(back) == ks::rank_digest_json(d));
  CHECK(back.comm.size() == 2);
  CHECK(back.comm[1].dur_ns == 200000);
  // Each rank source, the last ones included (an export's process, the page's workers send it).
  for (ks::RankSource s : {ks::RankSource::kEnvironment, ks::RankSource::kExportProcess}) {
    ks::RankDigest e = d;
    e.source = s;
    REQUIRE(ks::parse_rank_digest_json(ks::rank_digest_json(e), &back));
    CHECK(back.source == s);
  }
  std::string bad = ks::rank_digest_json(d);
  const size_t at = bad.find("\"source\": ");
  REQUIRE(at != std::string::npos);
  bad.replace(at, std::string("\"source\": 2").size(), "\"source\": 9");
  CHECK_FALSE(ks::parse_rank_digest_json(bad, &back));
  CHECK_FALSE(ks::parse_rank_digest_json("{\"schema\": \"something else\"}", &back));
  CHECK_FALSE(ks::parse_rank_digest_json("not json", &back));
}

TEST_CASE("The planted straggler is named by the shortest-communication rule, with its cause",
          "[analysis][ranks][findings][pathologies]") {
  SECTION("rank 5 slower in compute") {
    ks::MultiRankReport m = ks::combine_ranks(load_rank_dir(pathology("straggler_compute"), 8));
    const ks::Finding* f = find(m.findings, "ranks.straggler");
    REQUIRE(f);
    CHECK(f->title.rfind("Rank 5 is the straggler", 0) == 0);
    bool cause_compute = false;
    for (const ks::Evidence& e : f->evidence)
      if (e.key == "likely_cause") cause_compute = e.text.rfind("compute", 0) == 0;
    CHECK(cause_compute);
    const ks::Finding* skew = find(m.findings, "ranks.compute_skew");
    REQUIRE(skew);
    CHECK(skew->title.rfind("Rank 5 computes longer", 0) == 0);
    CHECK(find(m.findings, "ranks.dataloader_skew") == nullptr);
    // HTA's late-start rule agrees.
    const ks::Finding* late = find(m.findings, "ranks.late_start");
    REQUIRE(late);
    CHECK(late->title.rfind("Rank 5 ", 0) == 0);
  }
  SECTION("rank 5 slower in data loading") {
    ks::MultiRankReport m = ks::combine_ranks(load_rank_dir(pathology("straggler_dataloader"), 8));
    const ks::Finding* f = find(m.findings, "ranks.straggler");
    REQUIRE(f);
    CHECK(f->title.rfind("Rank 5 is the straggler", 0) == 0);
    bool cause_data = false;
    for (const ks::Evidence& e : f->evidence)
      if (e.key == "likely_cause") cause_data = e.text.rfind("data loading", 0) == 0;
    CHECK(cause_data);
    REQUIRE(find(m.findings, "ranks.dataloader_skew"));
    CHECK(find(m.findings, "ranks.compute_skew") == nullptr);
  }
  SECTION("the clean set has no straggler or skew finding") {
    ks::MultiRankReport m = ks::combine_ranks(load_rank_dir(pathology("straggler_clean"), 8));
    CHECK(m.findings.empty());
    CHECK(m.result.counts_match);
    CHECK(m.result.collectives.size() == 15);
  }
}

TEST_CASE("The 8-rank DLRM job: ranks from distributedInfo, collectives agree", "[corpus][ranks]") {
  std::vector<std::string> files = {
      "param__dlrm_kineto__worker0_step_12.1694128201545.pt.trace.json",
      "param__dlrm_kineto__worker1_step_12.1694128201556.pt.trace.json",
      "param__dlrm_kineto__worker2_step_12.1694128201554.pt.trace.json",
      "param__dlrm_kineto__worker3_step_12.1694128201557.pt.trace.json",
      "param__dlrm_kineto__worker4_step_12.1694128201547.pt.trace.json",
      "param__dlrm_kineto__worker5_step_12.1694128201549.pt.trace.json",
      "param__dlrm_kineto__worker6_step_12.1694128201553.pt.trace.json",
      "param__dlrm_kineto__worker7_step_12.1694128201553.pt.trace.json"};
  if (!file_exists(shared_trace(files[0]))) {
    WARN("SKIPPED: the DLRM traces in ../shared/traces are absent");
    return;
  }
  std::vector<ks::RankDigest> digests;
  // Reversed load order: ranks must still come from distributedInfo.
  for (size_t i = files.size(); i-- > 0;) {
    Loaded l = load_file(shared_trace(files[i]));
    REQUIRE(l.ok);
    digests.push_back(digest_of(*l.trace, files[i], digests.size()));
  }
  ks::MultiRankReport m = ks::combine_ranks(digests);
  REQUIRE(m.result.ranks.size() == 8);
  for (size_t k = 0; k < 8; ++k) {
    CHECK(m.result.ranks[k].rank == static_cast<int64_t>(k));
    CHECK(m.result.ranks[k].source == ks::RankSource::kDistributedInfo);
    CHECK(m.result.ranks[k].collectives == 8);  // 5 all-to-all + 3 all-reduce per rank
  }
  CHECK(m.result.counts_match);
  CHECK(m.result.names_match);
  // Rank 7 spends the least time in collectives (1.75 ms vs a 6.25 ms median): the others wait
  // for it.
  const ks::Finding* f = find(m.findings, "ranks.straggler");
  REQUIRE(f);
  CHECK(f->title.rfind("Rank 7 is the straggler", 0) == 0);
  // No rank stands out by GPU idle gaps.
  CHECK(find(m.findings, "ranks.idle_gap_straggler") == nullptr);
  // No pipeline here (all-to-all and all-reduce, no send/recv): no slowest stage.
  CHECK(find(m.findings, "ranks.slow_pipeline_stage") == nullptr);
  // The 2023 traces have no Kineto collective args; their "nccl:all_reduce" / "nccl:all_to_all"
  // annotations carry the input tensor (Input Dims, Input type): rank 0 all-reduces 394241,
  // 112 and 226960 floats, all-to-alls 6144 floats twice, 24 longs, 384 and 3392 ints. No
  // group size there: no bus bandwidth.
  REQUIRE(m.result.collectives.size() == 8);
  CHECK(m.result.collectives[4].collective == "all_reduce");
  CHECK(m.result.collectives[4].dtype == "float");
  CHECK(m.result.collectives[4].in_nelems == 394241);
  CHECK(m.result.collectives[4].bytes == 394241 * 4);
  CHECK(m.result.collectives[4].busbw_gbps < 0);
  CHECK(m.result.collectives[1].bytes == 24 * 8);
  REQUIRE(m.result.collective_groups.size() == 2);
  CHECK(m.result.collective_groups[0].collective == "all_to_all");
  CHECK(m.result.collective_groups[0].bytes == (6144 * 4 * 2 + 24 * 8 + 384 * 4 + 3392 * 4));
  CHECK(m.result.collective_groups[1].bytes == (394241 + 112 + 226960) * 4);
  CHECK(m.result.alignment.mode == ks::AlignMode::kStep);
  CHECK(m.result.alignment.step == 10);  // the one ProfilerStep: #10

  // The per-rank table against HTA's per-rank results (../shared/reference: HTA run on each
  // rank's file): temporal breakdown (span, idle, compute) and comm/compute overlap. These
  // traces have whole-microsecond timestamps, so HTA's rounding changes nothing: they agree to
  // the microsecond.
  for (size_t k = 0; k < 8; ++k) {
    std::string ref = shared_dir() + "/reference/" + files[k] + ".hta.json";
    if (!file_exists(ref)) {
      WARN("SKIPPED: no HTA reference " << ref);
      break;
    }
    simdjson::dom::parser parser;
    simdjson::dom::element root, run;
    REQUIRE_FALSE(parser.load(ref).get(root));
    simdjson::dom::array runs, temporal, overlap;
    REQUIRE(array(root, "runs", &runs));
    REQUIRE_FALSE(runs.at(0).get(run));
    element results = at(run, "results");
    REQUIRE(array(results, "temporal_breakdown", &temporal));
    REQUIRE(array(results, "comm_comp_overlap", &overlap));
    element tb, ov;
    REQUIRE_FALSE(temporal.at(0).get(tb));
    REQUIRE_FALSE(overlap.at(0).get(ov));
    const ks::RankRow& row = m.result.ranks[k];
    INFO("rank " << k);
    CHECK(u64(tb, "rank", 99) == k);
    CHECK(static_cast<double>(row.gpu_span_ns) / 1e3 ==
          Approx(dbl(tb, "kernel_time(us)")).margin(1));
    CHECK(static_cast<double>(row.idle_ns) / 1e3 == Approx(dbl(tb, "idle_time(us)")).margin(1));
    CHECK(static_cast<double>(row.compute_ns) / 1e3 ==
          Approx(dbl(tb, "compute_time(us)")).margin(1));
    CHECK(row.overlap_pct == Approx(dbl(ov, "comp_comm_overlap_pctg")).margin(0.01));
  }
}

namespace {

// Two ranks of one all-reduce of 1,000,000 floats over 4 ranks. `on_kernel`: the collective args
// are on the kernel (Kineto 2024+); else only on the record_param_comms CPU op that launched it.
std::string sized_rank(int rank, int dur_us, bool on_kernel, int64_t start_us = 0) {
  const std::string args =
      R"("Collective name":"allreduce","In msg nelems":1000000,"Out msg nelems":1000000,)"
      R"("Group size":4,"dtype":"Float","Process Group Name":"0")";
  auto ts = [start_us](int us) { return std::to_string(start_us + us); };
  std::string t =
      "{\"distributedInfo\": {\"rank\": " + std::to_string(rank) + "}, \"traceEvents\": [";
  t += R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#3","pid":1,"tid":1,"ts":)" +
       ts(0) + R"(,"dur":1000})";
  t += R"(,{"ph":"X","cat":"cpu_op","name":"record_param_comms","pid":1,"tid":1,"ts":)" + ts(10) +
       R"(,"dur":30,"args":{)" + (on_kernel ? std::string("\"External id\":5") : args) + "}}";
  t += R"(,{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" +
       ts(15) + R"(,"dur":10,"args":{"correlation":77}})";
  t +=
      R"(,{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_f32_RING_LL","pid":0,"tid":20,"ts":)" +
      ts(50) + ",\"dur\":" + std::to_string(dur_us) + R"(,"args":{"stream":20,"correlation":77)" +
      (on_kernel ? "," + args : std::string()) + "}}";
  t += R"(,{"ph":"X","cat":"kernel","name":"sm90_xmma_gemm","pid":0,"tid":7,"ts":)" + ts(400) +
       R"(,"dur":300,"args":{"stream":7}})";
  return t + "]}";
}

}  // namespace

TEST_CASE("dtype sizes and nccl-tests bus factors", "[analysis][ranks]") {
  CHECK(ks::dtype_size("Float") == 4);
  CHECK(ks::dtype_size("BFloat16") == 2);
  CHECK(ks::dtype_size("Long") == 8);
  CHECK(ks::dtype_size("float32") == 0);  // not a c10 name: unknown, no size
  CHECK(ks::bus_factor("allreduce", 8) == Approx(1.75));
  CHECK(ks::bus_factor("all_reduce_coalesced", 4) == Approx(1.5));
  CHECK(ks::bus_factor("_allgather_base", 8) == Approx(0.875));
  CHECK(ks::bus_factor("reduce_scatter_tensor", 2) == Approx(0.5));
  CHECK(ks::bus_factor("all_to_all", 4) == Approx(0.75));
  CHECK(ks::bus_factor("broadcast", 8) == Approx(1.0));
  CHECK(ks::bus_factor("send", 2) < 0);
  CHECK(ks::bus_factor("allreduce", ks::kNoValue) < 0);
}

TEST_CASE("Collective message sizes come from the kernel's args or its record_param_comms op",
          "[analysis][ranks]") {
  for (bool on_kernel : {true, false}) {
    INFO("args on the kernel: " << on_kernel);
    auto r0 = load(sized_rank(0, 100, on_kernel));
    auto r1 = load(sized_rank(1, 250, on_kernel));
    ks::MultiRankResult m = ks::compare_ranks({digest_of(*r0, "a", 0), digest_of(*r1, "b", 1)});
    REQUIRE(m.collectives.size() == 1);
    const ks::CollectiveRow& c = m.collectives[0];
    CHECK(c.collective == "allreduce");
    CHECK(c.dtype == "Float");
    CHECK(c.in_nelems == 1000000);
    CHECK(c.group_size == 4);
    CHECK(c.bytes == 4000000);
    CHECK(c.transfer_ns == 100000);
    // 4e6 B / 100 us = 40 GB/s; all-reduce over 4 ranks: x 2(4-1)/4 = 60 GB/s.
    CHECK(c.algbw_gbps == Approx(40.0));
    CHECK(c.busbw_gbps == Approx(60.0));
    REQUIRE(m.collective_groups.size() == 1);
    CHECK(m.collective_groups[0].count == 1);
    CHECK(m.collective_groups[0].bytes == 4000000);
    CHECK(m.collective_groups[0].wait_ns == 150000);
    CHECK(m.collective_groups[0].busbw_gbps == Approx(60.0));
  }
  SECTION("without collective args there is no size and no bandwidth") {
    auto r0 = load(rank_trace(0, {100}));
    auto r1 = load(rank_trace(1, {200}));
    ks::MultiRankResult m = ks::compare_ranks({digest_of(*r0, "a", 0), digest_of(*r1, "b", 1)});
    REQUIRE(m.collectives.size() == 1);
    CHECK(m.collectives[0].bytes == ks::kNoValue);
    CHECK(m.collectives[0].busbw_gbps < 0);
    CHECK(m.collective_groups[0].busbw_gbps < 0);
  }
  SECTION("the message survives the digest's JSON round trip") {
    auto r0 = load(sized_rank(0, 100, false));
    ks::RankDigest d = digest_of(*r0, "a", 0);
    ks::RankDigest back;
    REQUIRE(ks::parse_rank_digest_json(ks::rank_digest_json(d), &back));
    REQUIRE(back.comm.size() == 1);
    CHECK(back.comm[0].collective == "allreduce");
    CHECK(back.comm[0].out_nelems == 1000000);
    CHECK(ks::rank_digest_json(back) == ks::rank_digest_json(d));
  }
}

TEST_CASE("Alignment: on step N by default, or HTA's global minimum", "[analysis][ranks]") {
  // Rank 1's trace starts 200 us after rank 0's (its clock, or its capture, is later).
  auto r0 = load(sized_rank(0, 100, true, 1000000));
  auto r1 = load(sized_rank(1, 100, true, 1000200));
  std::vector<ks::RankDigest> d = {digest_of(*r0, "a", 0), digest_of(*r1, "b", 1)};
  SECTION("step") {
    ks::Alignment al = ks::compare_ranks(d, ks::AlignMode::kStep).alignment;
    CHECK(al.mode == ks::AlignMode::kStep);
    CHECK(al.step == 3);
    REQUIRE(al.ranks.size() == 2);
    CHECK(al.ranks[0].offset_ns == 0);
    CHECK(al.ranks[1].offset_ns == 200000);
    CHECK(al.ranks[1].first_event_ns == 200000);
    CHECK(al.ranks[0].step_start_ns == 0);
    CHECK(al.ranks[1].step_start_ns == 0);
  }
  SECTION("global-min") {
    ks::Alignment al = ks::compare_ranks(d, ks::AlignMode::kGlobalMin).alignment;
    CHECK(al.mode == ks::AlignMode::kGlobalMin);
    CHECK(al.ranks[0].offset_ns == 0);
    CHECK(al.ranks[1].offset_ns == 0);
    CHECK(al.ranks[1].first_event_ns == 200000);
    CHECK(al.ranks[1].step_start_ns == 200000);
    CHECK(al.ranks[1].step_end_ns == 1200000);
  }
  SECTION("the JSON says which was used") {
    std::string json = ks::multi_rank_json(ks::combine_ranks(d, ks::AlignMode::kGlobalMin), {});
    CHECK(json.find("\"mode\": \"global-min\"") != std::string::npos);
    ks::AlignMode mode;
    CHECK(ks::parse_align_mode("global-min", &mode));
    CHECK(mode == ks::AlignMode::kGlobalMin);
    CHECK_FALSE(ks::parse_align_mode("min", &mode));
  }
}

TEST_CASE("A rank with extra GPU idle gaps inside its steps is named; the others stay quiet",
          "[analysis][ranks][findings][pathologies]") {
  SECTION("the planted idle-gap straggler: rank 5") {
    ks::MultiRankReport m = ks::combine_ranks(load_rank_dir(pathology("straggler_idle_gaps"), 8));
    const ks::Finding* f = find(m.findings, "ranks.idle_gap_straggler");
    REQUIRE(f);
    CHECK(f->title.rfind("Rank 5 has extra GPU idle gaps", 0) == 0);
    // 3 stalls of ~0.4 ms per step, 5 steps: 15 gaps on rank 5, about 6 ms of idle.
    CHECK(m.result.ranks[5].idle_gaps >= 15);
    CHECK(m.result.ranks[5].idle_gap_ns > 5000000);
    // The shortest-communication rule names the same rank; no compute or data-loader skew.
    const ks::Finding* s = find(m.findings, "ranks.straggler");
    REQUIRE(s);
    CHECK(s->title.rfind("Rank 5 is the straggler", 0) == 0);
    // The GPU idles; on its CPU, the .item() sync only this rank makes (its range is a direct
    // child of the step on rank 5 alone).
    std::string cause;
    for (const ks::Evidence& e : s->evidence)
      if (e.key == "likely_cause") cause = e.text;
    CHECK(cause.rfind("GPU idle gaps", 0) == 0);
    CHECK(cause.find("on its CPU: aten::item") != std::string::npos);
    CHECK(find(m.findings, "ranks.compute_skew") == nullptr);
    CHECK(find(m.findings, "ranks.dataloader_skew") == nullptr);
    // The generator sizes each ring all-reduce transfer at 150 GB/s of bus bandwidth (+-3%
    // jitter, generate.py nccl_algbw_gbps): the nccl-tests busbw recovers it.
    REQUIRE(m.result.collective_groups.size() == 1);
    CHECK(m.result.collective_groups[0].collective == "allreduce");
    CHECK(m.result.collective_groups[0].count == 15);
    CHECK(m.result.collective_groups[0].busbw_gbps == Approx(150.0).epsilon(0.04));
    // Exactly one rank named.
    size_t n = 0;
    for (const ks::Finding& x : m.findings) n += x.id == "ranks.idle_gap_straggler";
    CHECK(n == 1);
  }
  SECTION("not on the compute or data-loading stragglers (data loading is netted out)") {
    for (const char* set : {"straggler_compute", "straggler_dataloader", "straggler_clean"}) {
      INFO(set);
      ks::MultiRankReport m = ks::combine_ranks(load_rank_dir(pathology(set), 8));
      CHECK(find(m.findings, "ranks.idle_gap_straggler") == nullptr);
    }
  }
}

TEST_CASE("Host wait: GPU idle gaps whose next op the CPU launched only after the gap began",
          "[analysis][ranks]") {
  // GPU ops at [100, 200) and [500, 600) us, launched at 50 and 450 (the second after the gap
  // began at 200: host wait 300 us); a third at [700, 800), launched at 150 (before its gap
  // began at 600: the GPU waited on something else, not the host).
  std::string t = R"({"traceEvents": [
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":50,"dur":5,"args":{"correlation":1}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":150,"dur":5,"args":{"correlation":3}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":450,"dur":5,"args":{"correlation":2}},
    {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":100,"dur":100,"args":{"stream":7,"correlation":1}},
    {"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":500,"dur":100,"args":{"stream":7,"correlation":2}},
    {"ph":"X","cat":"kernel","name":"k3","pid":0,"tid":7,"ts":700,"dur":100,"args":{"stream":7,"correlation":3}}]})";
  auto trace = load(t);
  ks::RankDigest d = digest_of(*trace, "a", 0);
  CHECK(d.gpu_span_ns - d.busy_ns == 400000);
  CHECK(d.host_wait_ns == 300000);
}

TEST_CASE("Per-step numbers: the rank's totals clipped to each step", "[analysis][ranks]") {
  // Step 3 is [0, 1000) us: an all-reduce at [10, 110), a GEMM at [5, 305): compute 300 us,
  // communication 100, all of it overlapped, busy 300, idle 700.
  auto r0 = load(rank_trace(0, {100}));
  auto r1 = load(rank_trace(1, {100}));
  ks::MultiRankResult m = ks::compare_ranks({digest_of(*r0, "a", 0), digest_of(*r1, "b", 1)});
  REQUIRE(m.ranks[0].step_detail.size() == 1);
  const ks::StepSpan& s = m.ranks[0].step_detail[0];
  CHECK(s.number == 3);
  CHECK(s.compute_ns == 300000);
  CHECK(s.communication_ns == 100000);
  CHECK(s.overlap_ns == 100000);
  CHECK(s.busy_ns == 300000);
  CHECK(s.idle_ns() == 700000);
  CHECK(s.dataloader_ns == 0);
  std::string json =
      ks::multi_rank_json(ks::combine_ranks({digest_of(*r0, "a", 0), digest_of(*r1, "b", 1)}), {});
  CHECK(json.find("\"idle_us\": [\n      [\n        700.000\n") != std::string::npos);  // heat map
  CHECK(json.find("\"idle_us\": 700.000") != std::string::npos);                        // step_mean
}

TEST_CASE("A real trace's collective args are read from its NCCL kernels", "[corpus][ranks]") {
  // An MI300 DDP trace (rank 0 of 8, RCCL 2.22): its kernels carry "Collective name", "In msg
  // nelems", "dtype", "Group size". The first 5 NCCL kernels were launched before the capture
  // (no runtime call in the trace): nothing to read for them.
  const std::string file = "tracelens__mi300__resnet_act_checkpoint.json.gz";
  if (!file_exists(shared_trace(file))) {
    WARN("SKIPPED: " << file << " is absent from ../shared/traces");
    return;
  }
  Loaded l = load_file(shared_trace(file));
  REQUIRE(l.ok);
  ks::RankDigest d = digest_of(*l.trace, file, 0);
  REQUIRE(d.comm.size() == 17);
  size_t without = 0, allreduce = 0, broadcast = 0;
  for (const ks::CommKernel& k : d.comm) {
    if (k.collective.empty()) {
      ++without;
      continue;
    }
    CHECK(k.group_size == 8);
    if (k.collective == "allreduce") {
      ++allreduce;
      CHECK(k.dtype == "BFloat16");
      CHECK((k.in_nelems == 2873320 || k.in_nelems == 8816192));
      CHECK(k.out_nelems == k.in_nelems);
    } else if (k.collective == "broadcast") {
      ++broadcast;
      CHECK((k.dtype == "BFloat16" || k.dtype == "Long"));
    }
  }
  CHECK(without == 5);
  CHECK(allreduce == 6);
  CHECK(broadcast == 6);
}

TEST_CASE("Hostile collective args give no size and no bandwidth, never an overflow",
          "[analysis][ranks]") {
  auto rank = [](int r, const std::string& args) {
    return "{\"distributedInfo\": {\"rank\": " + std::to_string(r) + R"(}, "traceEvents": [
      {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":1000},
      {"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce","pid":0,"tid":20,"ts":10,"dur":100,"args":{"stream":20,)" +
           args + "}}]}";
  };
  const std::vector<std::string> cases = {
      R"("Collective name":"allreduce","In msg nelems":9000000000000000000,"dtype":"Double","Group size":8)",
      R"("Collective name":"allreduce","In msg nelems":-5,"Out msg nelems":-1,"dtype":"Float","Group size":8)",
      R"("Collective name":"allreduce","In msg nelems":100,"dtype":7,"Group size":8)",
      R"("Collective name":{"x":1},"In msg nelems":100,"dtype":"Float","Group size":0)",
  };
  for (const std::string& args : cases) {
    INFO(args);
    auto r0 = load(rank(0, args));
    auto r1 = load(rank(1, args));
    REQUIRE(r0);
    ks::MultiRankResult m = ks::compare_ranks({digest_of(*r0, "a", 0), digest_of(*r1, "b", 1)});
    REQUIRE(m.collectives.size() == 1);
    const ks::CollectiveRow& c = m.collectives[0];
    CHECK(c.busbw_gbps < 0);
    if (c.bytes >= 0) CHECK(c.bytes == 400);  // the last case: 100 floats, but no group size
    std::string json = ks::multi_rank_json(ks::combine_ranks({digest_of(*r0, "a", 0)}), {});
    CHECK(json.find("\"busbw_gbps\": null") != std::string::npos);
  }
}

namespace {

// A communication kernel for comm_trace: its stream, name, start and duration (us), and the
// process group it carries in its collective args ("" for none).
struct Comm {
  int stream;
  std::string name;
  int ts, dur;
  std::string group;
};

// One rank: one step [0, 10000) us and the given communication kernels.
std::string comm_trace(int rank, const std::vector<Comm>& kernels) {
  std::string t = "{\"distributedInfo\": {\"rank\": " + std::to_string(rank) +
                  ", \"world_size\": 3}, \"traceEvents\": [";
  t +=
      R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":10000})";
  for (const Comm& k : kernels) {
    t += R"(,{"ph":"X","cat":"kernel","name":")" + k.name + R"(","pid":0,"tid":)" +
         std::to_string(k.stream) + ",\"ts\":" + std::to_string(k.ts) +
         ",\"dur\":" + std::to_string(k.dur) + R"(,"args":{"stream":)" + std::to_string(k.stream);
    if (!k.group.empty())
      t += R"(,"Collective name":"allreduce","dtype":"Float","In msg nelems":1024,)"
           R"("Out msg nelems":1024,"Group size":3,"Process Group Name":")" +
           k.group + "\"";
    t += "}}";
  }
  return t + "]}";
}

ks::MultiRankReport compare_comm(const std::vector<std::vector<Comm>>& ranks) {
  std::vector<ks::RankDigest> d;
  for (size_t k = 0; k < ranks.size(); ++k) {
    auto t = load(comm_trace(static_cast<int>(k), ranks[k]));
    d.push_back(digest_of(*t, "rank-" + std::to_string(k) + ".json", k));
  }
  return ks::combine_ranks(d);
}

// The matched row of `channel` at `sequence`, or nullptr.
const ks::CollectiveRow* row_of(const ks::MultiRankResult& m, const std::string& channel,
                                size_t sequence) {
  for (const ks::CollectiveRow& r : m.collectives)
    if (r.channel == channel && r.sequence == sequence) return &r;
  return nullptr;
}

const char* kAR = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
const char* kAG = "ncclDevKernel_AllGather_RING_LL";
const char* kRS = "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL";

}  // namespace

TEST_CASE("Collectives on two comm streams match per stream, whatever the interleaving",
          "[analysis][ranks]") {
  // FSDP-like: all-gathers on stream 20, reduce-scatters on stream 24. Rank 0 runs them
  // alternately, rank 1 runs both all-gathers first: merged over streams, the i-th kernels of
  // the two ranks are different collectives (the old false mismatch).
  ks::MultiRankReport m = compare_comm({
      {{20, kAG, 100, 30, ""},
       {24, kRS, 200, 40, ""},
       {20, kAG, 300, 30, ""},
       {24, kRS, 400, 40, ""}},
      {{20, kAG, 100, 10, ""},
       {20, kAG, 150, 20, ""},
       {24, kRS, 300, 40, ""},
       {24, kRS, 400, 50, ""}},
  });
  const ks::MultiRankResult& r = m.result;
  CHECK(r.counts_match);
  CHECK(r.names_match);
  CHECK(r.mismatch_channel.empty());
  CHECK(find(m.findings, "ranks.collective_mismatch") == nullptr);
  REQUIRE(r.collectives.size() == 4);
  // In order of issue on rank 0.
  CHECK(r.collectives[0].channel == "stream 20");
  CHECK(r.collectives[1].channel == "stream 24");
  CHECK(r.collectives[2].channel == "stream 20");
  CHECK(r.collectives[2].sequence == 1);
  for (size_t i = 0; i < 4; ++i) CHECK(r.collectives[i].index == i);
  // Durations are compared per collective: the second all-gather is 30 vs 20 us, the second
  // reduce-scatter 40 vs 50 us.
  const ks::CollectiveRow* ag1 = row_of(r, "stream 20", 1);
  REQUIRE(ag1);
  CHECK(ag1->name_text == kAG);
  CHECK(ag1->transfer_ns == 20000);
  const ks::CollectiveRow* rs1 = row_of(r, "stream 24", 1);
  REQUIRE(rs1);
  CHECK(rs1->transfer_ns == 40000);
  // Waits: rank 0 (30-10) + (30-20) + 0 + 0 = 30 us; rank 1: 0 + 0 + 0 + (50-40) = 10 us.
  CHECK(r.ranks[0].wait_ns == 30000);
  CHECK(r.ranks[1].wait_ns == 10000);
}

TEST_CASE("Three comm streams, numbered differently on each rank, match by first use",
          "[analysis][ranks]") {
  // Data, tensor and pipeline parallel communicators: three streams. Rank 1's streams have other
  // numbers (a stream number is the rank's own) and its order of issue differs after the first
  // kernel of each stream.
  ks::MultiRankReport m = compare_comm({
      {{20, kAR, 100, 10, ""},
       {24, kAG, 200, 10, ""},
       {28, kRS, 300, 10, ""},
       {20, kAR, 400, 10, ""},
       {24, kAG, 500, 10, ""},
       {28, kRS, 600, 10, ""}},
      {{30, kAR, 100, 10, ""},
       {34, kAG, 200, 10, ""},
       {38, kRS, 300, 10, ""},
       {38, kRS, 350, 10, ""},
       {34, kAG, 450, 10, ""},
       {30, kAR, 550, 15, ""}},
      {{20, kAR, 100, 12, ""},
       {24, kAG, 200, 10, ""},
       {28, kRS, 300, 10, ""},
       {24, kAG, 330, 10, ""},
       {20, kAR, 360, 10, ""},
       {28, kRS, 390, 10, ""}},
  });
  const ks::MultiRankResult& r = m.result;
  CHECK(r.counts_match);
  CHECK(r.names_match);
  CHECK(find(m.findings, "ranks.collective_mismatch") == nullptr);
  REQUIRE(r.collectives.size() == 6);
  const ks::CollectiveRow* ar1 = row_of(r, "stream #1", 1);
  REQUIRE(ar1);
  CHECK(ar1->name_text == kAR);
  REQUIRE(ar1->dur_ns.size() == 3);
  CHECK(ar1->dur_ns[1] == 15000);
  CHECK(ar1->transfer_ns == 10000);
  const ks::CollectiveRow* ar0 = row_of(r, "stream #1", 0);
  REQUIRE(ar0);
  CHECK(ar0->transfer_ns == 10000);
  CHECK(ar0->dur_ns[2] == 12000);
}

TEST_CASE("Process groups name the communicator; a group of some ranks is compared among them",
          "[analysis][ranks]") {
  // Both groups on one stream per rank but issued in a different order: the process group
  // arg separates them. Group "7" (a pipeline pair) is only on ranks 0 and 1.
  ks::MultiRankReport m = compare_comm({
      {{20, kAR, 100, 10, "0"},
       {20, kAG, 200, 10, "1"},
       {20, kAR, 300, 10, "0"},
       {22, kAR, 400, 10, "7"}},
      {{20, kAG, 100, 10, "1"},
       {20, kAR, 200, 10, "0"},
       {20, kAR, 300, 20, "0"},
       {22, kAR, 400, 10, "7"}},
      {{20, kAR, 100, 10, "0"}, {20, kAR, 200, 10, "0"}, {20, kAG, 300, 10, "1"}},
  });
  const ks::MultiRankResult& r = m.result;
  CHECK(r.counts_match);
  CHECK(r.names_match);
  REQUIRE(r.collectives.size() == 4);
  const ks::CollectiveRow* ar1 = row_of(r, "group 0", 1);
  REQUIRE(ar1);
  CHECK(ar1->dur_ns[1] == 20000);
  CHECK(ar1->collective == "allreduce");
  CHECK(row_of(r, "group 1", 0) != nullptr);
  // Group "7" is compared among its members, ranks 0 and 1.
  const ks::CollectiveRow* pair = row_of(r, "group 7", 0);
  REQUIRE(pair);
  CHECK(pair->dur_ns == std::vector<int64_t>{10000, 10000, ks::kNoValue});

  // The digest's JSON keeps the process group (the page compares ranks from digests).
  auto t = load(comm_trace(0, {{20, kAR, 100, 10, "0"}}));
  ks::RankDigest d = digest_of(*t, "rank-0.json", 0);
  ks::RankDigest back;
  REQUIRE(ks::parse_rank_digest_json(ks::rank_digest_json(d), &back));
  REQUIRE(back.comm.size() == 1);
  CHECK(back.comm[0].process_group == "0");
}

TEST_CASE("A real mismatch inside one communicator is still found, and named",
          "[analysis][ranks][findings]") {
  SECTION("different collectives at the same place in a stream") {
    ks::MultiRankReport m = compare_comm({
        {{20, kAG, 100, 10, ""}, {24, kRS, 150, 10, ""}, {20, kAG, 200, 10, ""}},
        {{20, kAG, 100, 10, ""}, {24, kRS, 150, 10, ""}, {20, kAR, 200, 10, ""}},
    });
    CHECK(m.result.counts_match);
    CHECK_FALSE(m.result.names_match);
    CHECK(m.result.mismatch_channel == "stream 20");
    CHECK(m.result.first_mismatch == 2);
    const ks::Finding* f = find(m.findings, "ranks.collective_mismatch");
    REQUIRE(f);
    CHECK(f->title == "Ranks ran different collectives at position 2 in stream 20");
  }
  SECTION("one more collective on one stream of one rank") {
    ks::MultiRankReport m = compare_comm({
        {{20, kAG, 100, 10, ""}, {24, kRS, 150, 10, ""}, {24, kRS, 250, 10, ""}},
        {{20, kAG, 100, 10, ""}, {24, kRS, 150, 10, ""}},
    });
    CHECK_FALSE(m.result.counts_match);
    CHECK(m.result.mismatch_channel == "stream 24");
    CHECK(m.result.collectives.size() == 2);
    REQUIRE(find(m.findings, "ranks.collective_mismatch"));
  }
  SECTION("a stream that one rank lacks") {
    ks::MultiRankReport m = compare_comm({
        {{20, kAG, 100, 10, ""}, {24, kRS, 150, 10, ""}},
        {{20, kAG, 100, 10, ""}},
    });
    CHECK_FALSE(m.result.counts_match);
    REQUIRE(find(m.findings, "ranks.collective_mismatch"));
  }
}

TEST_CASE("Multi-rank: processes of several nsys exports are numbered on across them",
          "[analysis][multirank]") {
  auto digest = [](const std::string& file, int64_t rank, ks::RankSource source) {
    ks::RankDigest d;
    d.file = file;
    d.rank = rank;
    d.source = source;
    return d;
  };
  using S = ks::RankSource;
  // Two nodes' exports (four processes each, given node1 first), and a Kineto rank file.
  std::vector<ks::RankDigest> in = {
      digest("node1.sqlite pid 7001", 0, S::kExportProcess),
      digest("node1.sqlite pid 7002", 1, S::kExportProcess),
      digest("node0.sqlite pid 6001", 0, S::kExportProcess),
      digest("node1.sqlite pid 7003", 2, S::kExportProcess),
      digest("node1.sqlite pid 7004", 3, S::kExportProcess),
      digest("node0.sqlite pid 6002", 1, S::kExportProcess),
      digest("rank-9.json", 9, S::kFileName),
  };
  CHECK(ks::number_export_processes(&in) == 2);
  // The order the exports first appear: node1's processes 0-3, then node0's 4-5.
  CHECK(in[0].rank == 0);
  CHECK(in[1].rank == 1);
  CHECK(in[2].rank == 4);
  CHECK(in[3].rank == 2);
  CHECK(in[4].rank == 3);
  CHECK(in[5].rank == 5);
  CHECK(in[6].rank == 9);  // not an export's process: as it was
  // One export: its own numbering stands.
  std::vector<ks::RankDigest> one = {digest("a.sqlite pid 5", 1, S::kExportProcess),
                                     digest("a.sqlite pid 4", 0, S::kExportProcess)};
  CHECK(ks::number_export_processes(&one) == 1);
  CHECK(one[0].rank == 1);
  CHECK(one[1].rank == 0);
}

TEST_CASE("An NCCL kernel's name says its collective where no args do", "[analysis][ranks]") {
  CHECK(ks::collective_from_kernel_name(
            "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm *, unsigned long, ncclWork *)") ==
        "allreduce");
  CHECK(ks::collective_from_kernel_name("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)") ==
        "allreduce");
  CHECK(ks::collective_from_kernel_name("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL") ==
        "reduce_scatter");
  CHECK(ks::collective_from_kernel_name("ncclDevKernel_AllGather_RING_LL") == "allgather");
  CHECK(ks::collective_from_kernel_name("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t") ==
        "sendrecv");
  CHECK(ks::collective_from_kernel_name("ncclDevKernel_Reduce_Sum_f16_RING_LL") == "reduce");
  CHECK(ks::collective_from_kernel_name("ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)")
            .empty());
  CHECK(ks::collective_from_kernel_name("ampere_sgemm_64x64_nn").empty());
  // The built export of four torchrun processes has no collective args (nsys records none).
  CHECK(ks::bus_factor(ks::collective_from_kernel_name("ncclDevKernel_AllReduce_Sum_f32_RING_LL"),
                       4) == Approx(1.5));
}

TEST_CASE("gloo on CUDA (4 ranks on one H200): the straggler from the gloo:* CPU ranges",
          "[analysis][ranks][findings][h200]") {
  // examples/capture/ddp_per_rank.py --backend gloo --slow-rank 2 --slow-ms 20: no
  // communication kernels; gloo:all_reduce on the backend's threads lasts until every rank has
  // joined: 132-135 ms on ranks 0, 1, 3 and 11.8 ms on rank 2, which the others wait for.
  const std::string dir = ks_test::source_dir() + "/examples/pathologies/h200/ddp4_gloo_slow2/";
  std::vector<ks::RankDigest> ranks;
  for (int k = 0; k < 4; ++k) {
    const std::string file = "trace_rank" + std::to_string(k) + ".pt.trace.json.gz";
    Loaded l = load_file(dir + file);
    REQUIRE(l.ok);
    ranks.push_back(digest_of(*l.trace, file, k));
    CHECK(ranks.back().comm.size() == 6);  // 3 steps x 2 buckets
    for (const ks::CommKernel& c : ranks.back().comm) {
      CHECK(c.stream == ks::kCpuCollectiveStream);
      CHECK(c.collective == "all_reduce");
    }
  }
  ks::MultiRankReport m = ks::combine_ranks(ranks);
  const ks::Finding* f = find(m.findings, "ranks.straggler");
  REQUIRE(f);
  CHECK(f->title.rfind("Rank 2 is the straggler", 0) == 0);
  // Why: rank 2 alone runs record_function("slow_rank_extra_work"), 20 ms a step for 3 steps.
  CHECK(ks::named_ns(ranks[2].step_ranges, "slow_rank_extra_work") > 55000000);
  CHECK(ks::named_ns(ranks[0].step_ranges, "slow_rank_extra_work") == 0);
  std::string cause;
  for (const ks::Evidence& e : f->evidence)
    if (e.key == "likely_cause") cause = e.text;
  CHECK(cause.rfind("host range slow_rank_extra_work: 60.", 0) == 0);
  // The digest the page's workers exchange keeps the ranges.
  ks::RankDigest back;
  REQUIRE(ks::parse_rank_digest_json(ks::rank_digest_json(ranks[2]), &back));
  REQUIRE(back.step_ranges.size() == ranks[2].step_ranges.size());
  CHECK(back.step_ranges[0].name == ranks[2].step_ranges[0].name);
  CHECK(back.step_ranges[0].ns == ranks[2].step_ranges[0].ns);
}

TEST_CASE("ranks.missing: fewer files than the recorded world size",
          "[analysis][ranks][findings]") {
  // rank_trace records world_size 4.
  auto r0 = load(rank_trace(0, {100}));
  auto r1 = load(rank_trace(1, {100}));
  auto r3 = load(rank_trace(3, {100}));
  SECTION("ranks 0, 1 and 3 of 4: rank 2 is missing") {
    ks::MultiRankReport m =
        ks::combine_ranks({digest_of(*r0, "a", 0), digest_of(*r1, "b", 1), digest_of(*r3, "d", 2)});
    CHECK(m.result.world_size == 4);
    CHECK(m.result.missing_ranks == std::vector<int64_t>{2});
    const ks::Finding* f = find(m.findings, "ranks.missing");
    REQUIRE(f);
    CHECK(f->title == "3 of 4 ranks given (world_size 4): rank 2 missing");
    // The world size survives the digest's JSON trip (the page's workers send digests).
    ks::RankDigest back;
    REQUIRE(ks::parse_rank_digest_json(ks::rank_digest_json(digest_of(*r0, "a", 0)), &back));
    CHECK(back.world_size == 4);
  }
  SECTION("clean twin: all four ranks") {
    auto r2 = load(rank_trace(2, {100}));
    ks::MultiRankReport m = ks::combine_ranks({digest_of(*r0, "a", 0), digest_of(*r1, "b", 1),
                                               digest_of(*r2, "c", 2), digest_of(*r3, "d", 3)});
    CHECK(m.result.missing_ranks.empty());
    CHECK(find(m.findings, "ranks.missing") == nullptr);
  }
  SECTION("the same recorded rank twice: said as recorded, not guessed") {
    ks::MultiRankReport m = ks::combine_ranks({digest_of(*r0, "a", 0), digest_of(*r0, "b", 1)});
    const ks::Finding* f = find(m.findings, "ranks.identity");
    REQUIRE(f);
    CHECK(f->title == "Two files claim the same rank");
    CHECK(f->meaning.find("guessed") == std::string::npos);
    CHECK(f->meaning.find("record the same rank") != std::string::npos);
  }
}

namespace {

// A rank whose capture holds steps first..last, 1 ms each, step N at N ms: an all-reduce of
// `allreduce_us` then an all-gather of 100 us in each, and `extra` more all-gathers in step 4.
ks::RankDigest stepped_rank(int64_t rank, int64_t first, int64_t last, int64_t allreduce_us,
                            int extra = 0) {
  ks::RankDigest d;
  d.rank = rank;
  d.source = ks::RankSource::kFileName;
  d.file = "rank" + std::to_string(rank);
  auto collective = [&d](const char* name, int64_t ts_ns, int64_t dur_ns) {
    ks::CommKernel k;
    k.name = name;
    k.stream = 20;
    k.ts_ns = ts_ns;
    k.dur_ns = dur_ns;
    d.comm.push_back(k);
  };
  for (int64_t n = first; n <= last; ++n) {
    const int64_t begin = n * 1000000;
    d.step_spans.push_back({n, begin, begin + 1000000});
    // Each step's all-reduce lasts longer by a step's number of us: a pairing off by a step
    // shows in the durations compared.
    collective("ncclDevKernel_AllReduce", begin + 100000, (allreduce_us + n) * 1000);
    collective("ncclDevKernel_AllGather", begin + 600000, 100000);
    for (int e = 0; e < extra && n == 4; ++e)
      collective("ncclDevKernel_AllGather", begin + 800000 + e * 10000, 5000);
  }
  d.steps = d.step_spans.size();
  return d;
}

}  // namespace

TEST_CASE("Captures that start steps apart are paired from the first step every rank holds",
          "[analysis][ranks][findings]") {
  // Ranks 0-2 captured steps 1-5, rank 3 from step 4 on (its nsys --delay ended later): 4
  // collectives each in steps 4-5. Paired from each capture's first, rank 3's step-4 all-reduce
  // met the others' step-1 one and the counts (10 vs 4) made a false CRITICAL.
  std::vector<ks::RankDigest> ranks = {stepped_rank(0, 1, 5, 500), stepped_rank(1, 1, 5, 500),
                                       stepped_rank(2, 1, 5, 100), stepped_rank(3, 4, 5, 500)};
  ks::MultiRankReport m = ks::combine_ranks(ranks);
  CHECK(m.result.shared_steps == std::vector<int64_t>{4, 5});
  CHECK(m.result.counts_match);
  CHECK(m.result.names_match);
  CHECK(find(m.findings, "ranks.collective_mismatch") == nullptr);
  REQUIRE(m.result.collectives.size() == 4);
  // The first pair is step 4's all-reduce on every rank: 504 us, rank 2's 104 us.
  CHECK(m.result.collectives[0].dur_ns == std::vector<int64_t>{504000, 504000, 104000, 504000});
  CHECK(m.result.collectives[2].dur_ns == std::vector<int64_t>{505000, 505000, 105000, 505000});
  for (const ks::RankRow& row : m.result.ranks) {
    CHECK(row.compared_collectives == 4);
    CHECK(row.wait_ns == (row.rank == 2 ? 0 : 800000));  // 2 x 400 us over steps 4-5
  }
  CHECK(m.result.ranks[0].collectives == 10);  // the whole capture's, as the table counts them
  const std::string text = ks::multi_rank_text(m, {});
  CHECK(text.find("Collectives: 4 matched per communicator by order of issue over the 2 steps "
                  "every rank's capture holds, from step 4") != std::string::npos);
  // The rank table says which span its columns cover: the totals each capture's, the waits the
  // shared steps'.
  CHECK(
      text.find("compute, comm and the other totals cover each rank's whole capture; wait "
                "covers the collectives of the 2 steps every rank's capture holds, from step 4") !=
      std::string::npos);

  SECTION("a rank that issues more collectives in a shared step is still a mismatch") {
    ranks[1] = stepped_rank(1, 1, 5, 500, 2);
    m = ks::combine_ranks(ranks);
    CHECK_FALSE(m.result.counts_match);
    const ks::Finding* f = find(m.findings, "ranks.collective_mismatch");
    REQUIRE(f);
    CHECK(f->title == "Ranks ran different numbers of collectives (4 to 6) in stream 20");
    bool counted_over = false;
    for (const ks::Evidence& e : f->evidence)
      counted_over = counted_over || (e.key == "counted_over" &&
                                      e.text.find("2 steps every rank's capture holds") == 0);
    CHECK(counted_over);
  }
}

TEST_CASE("A collective belongs to the step it was launched in, not the one its GPU start falls in",
          "[analysis][ranks][findings]") {
  // Ranks 0-2 captured steps 1-5, rank 3 steps 4-5. Each launches one more all-reduce 10 us
  // before step 5 ends; on rank 3 its GPU is behind and it starts 50 us after the step's end.
  // By GPU start rank 3 lost it from the shared steps (4 vs 5 collectives: a false CRITICAL).
  std::vector<ks::RankDigest> ranks = {stepped_rank(0, 1, 5, 500), stepped_rank(1, 1, 5, 500),
                                       stepped_rank(2, 1, 5, 500), stepped_rank(3, 4, 5, 500)};
  for (ks::RankDigest& d : ranks) {
    ks::CommKernel k;
    k.name = "ncclDevKernel_AllReduce";
    k.stream = 20;
    k.launch_ns = 6000000 - 10000;
    k.ts_ns = d.rank == 3 ? 6000000 + 50000 : 6000000 - 5000;
    k.dur_ns = 20000;
    d.comm.push_back(k);
  }
  ks::MultiRankReport m = ks::combine_ranks(ranks);
  CHECK(m.result.shared_steps == std::vector<int64_t>{4, 5});
  CHECK(m.result.counts_match);
  CHECK(find(m.findings, "ranks.collective_mismatch") == nullptr);
  for (const ks::RankRow& row : m.result.ranks) CHECK(row.compared_collectives == 5);
  REQUIRE(m.result.collectives.size() == 5);
  CHECK(m.result.collectives[4].dur_ns == std::vector<int64_t>{20000, 20000, 20000, 20000});

  SECTION("without a launch time, the GPU start still places it") {
    for (ks::RankDigest& d : ranks) d.comm.back().launch_ns = ks::CommKernel::kNoLaunch;
    m = ks::combine_ranks(ranks);
    CHECK_FALSE(m.result.counts_match);
    CHECK(m.result.ranks[3].compared_collectives == 4);
  }
  SECTION("the launch time survives the digest's JSON (the page's workers send digests)") {
    ks::RankDigest back;
    REQUIRE(ks::parse_rank_digest_json(ks::rank_digest_json(ranks[3]), &back));
    CHECK(back.comm.back().launch_ns == 6000000 - 10000);
    CHECK(back.comm.front().launch_ns == ks::CommKernel::kNoLaunch);
    CHECK(ks::rank_digest_json(back) == ks::rank_digest_json(ranks[3]));
  }
  SECTION("the JSON says over which steps the ranks were compared") {
    auto compact = [](std::string json) {  // the writer breaks arrays over lines
      json.erase(
          std::remove_if(json.begin(), json.end(), [](char c) { return c == ' ' || c == '\n'; }),
          json.end());
      return json;
    };
    CHECK(compact(ks::multi_rank_json(m, {})).find("\"shared_steps\":[4,5]") != std::string::npos);
    ranks.pop_back();  // ranks 0-2 hold the same steps: nothing shared to name
    CHECK(
        compact(ks::multi_rank_json(ks::combine_ranks(ranks), {})).find("\"shared_steps\":null") !=
        std::string::npos);
  }
}

TEST_CASE("multi-rank digest: a long collective name or arg is kept once, cut", "[multi_rank]") {
  // Each comm kernel's name and args are copied into the digest: one long text shared by many
  // kernels (an Nsight Systems export names kernels by id; one record_param_comms op encloses
  // many launches) was copied per kernel, 1.38 GB from a 1.1 MB export. Cut at 1,024 bytes.
  const std::string long_text(10000, 'x');
  std::string t = R"({"traceEvents":[{"ph":"X","cat":"user_annotation","name":"ProfilerStep#3",)"
                  R"("pid":1,"tid":1,"ts":0,"dur":100000})";
  for (int i = 0; i < 20; ++i)
    t += R"(,{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_f32_)" + long_text +
         R"(","pid":0,"tid":20,"ts":)" + std::to_string(10 + 100 * i) +
         R"(,"dur":50,"args":{"stream":20,"Collective name":"allreduce","Group size":2,)"
         R"("Process Group Name":")" +
         long_text + R"("}})";
  auto trace = load(t + "]}");
  REQUIRE(trace);
  const ks::RankDigest d = digest_of(*trace, "rank0.json", 0);
  REQUIRE(d.comm.size() == 20);
  for (const ks::CommKernel& k : d.comm) {
    CHECK(k.name.size() == 1024);
    CHECK(k.name.rfind("ncclDevKernel_AllReduce_Sum_f32_xxx", 0) == 0);
    CHECK(k.process_group.size() == 1024);
    CHECK(k.collective == "allreduce");
  }
}

TEST_CASE("Process Group Ranks: listed, and truncated past 30 ranks", "[analysis][ranks]") {
  std::vector<int64_t> m;
  REQUIRE(ks::parse_group_ranks("[0, 1, 2, 3]", 4, &m));
  CHECK(m == std::vector<int64_t>{0, 1, 2, 3});
  REQUIRE(ks::parse_group_ranks("[5]", ks::kNoValue, &m));
  CHECK(m == std::vector<int64_t>{5});
  // PyTorch writes "[first, ..., last]" past 30 ranks: a range the group's size fills is
  // every rank of it; otherwise only the two ends are known.
  REQUIRE(ks::parse_group_ranks("[0, ..., 63]", 64, &m));
  CHECK(m.size() == 64);
  CHECK(m.back() == 63);
  REQUIRE(ks::parse_group_ranks("[3, ..., 507]", 64, &m));
  CHECK(m == std::vector<int64_t>{3, 507});
  REQUIRE(ks::parse_group_ranks("[0, ..., 63]", ks::kNoValue, &m));
  CHECK(m == std::vector<int64_t>{0, 63});
  for (const char* bad :
       {"", "[]", "0, 1", "[0, x]", "[0, ..., 3, ...]", "[..., 3]", "[7, ..., 3]"})
    CHECK_FALSE(ks::parse_group_ranks(bad, 4, &m));
  // A hostile "Group size" that fills a range of 10^12 ranks is no list of 10^12 (it was:
  // bad_alloc); the two ends alone.
  REQUIRE(ks::parse_group_ranks("[0, ..., 999999999999]", 1000000000000, &m));
  CHECK(m == std::vector<int64_t>{0, 999999999999});
}

TEST_CASE("A member of a process group that issued none of its collectives is flagged",
          "[analysis][ranks][findings]") {
  // Ranks 0 and 1 issue group 5's two all-reduces; rank 2, a member by "Process Group Ranks",
  // issues only the world group's.
  const std::string g5 = R"("Process Group Ranks":"[0, 1, 2]")";
  const std::string g0 = R"("Process Group Ranks":"[0, 1, 2, 3]")";
  auto r0 = load(rank_trace(0, {50, 60, 70}, true, {"allreduce", "allreduce", "allreduce"},
                            {"5", "5", "0"}, {g5, g5, g0}));
  auto r1 = load(rank_trace(1, {50, 60, 70}, true, {"allreduce", "allreduce", "allreduce"},
                            {"5", "5", "0"}, {g5, g5, g0}));
  auto r2 = load(rank_trace(2, {70}, true, {"allreduce"}, {"0"}, {g0}));
  std::vector<ks::RankDigest> d = {digest_of(*r0, "a", 0), digest_of(*r1, "b", 1),
                                   digest_of(*r2, "c", 2)};
  ks::MultiRankReport m = ks::combine_ranks(d);
  REQUIRE(m.result.silent_members.size() == 1);
  CHECK(m.result.silent_members[0].rank == 2);
  CHECK(m.result.silent_members[0].process_group == "5");
  CHECK(m.result.silent_members[0].group_collectives == 2);
  const ks::Finding* f = find(m.findings, "ranks.group_member_silent");
  REQUIRE(f != nullptr);
  CHECK(f->title.find("Rank 2 issued none of process group 5's 2 collectives") !=
        std::string::npos);
  // The members survive the digest's JSON round trip (the page combines digests).
  std::vector<ks::RankDigest> back(3);
  for (size_t k = 0; k < 3; ++k)
    REQUIRE(ks::parse_rank_digest_json(ks::rank_digest_json(d[k]), &back[k]));
  CHECK(ks::combine_ranks(back).result.silent_members.size() == 1);
  // Without the members' list nothing says rank 2 belongs to group 5.
  auto o0 = load(rank_trace(0, {50, 60}, true, {"allreduce", "allreduce"}, {"5", "5"}));
  auto o1 = load(rank_trace(1, {50, 60}, true, {"allreduce", "allreduce"}, {"5", "5"}));
  auto o2 = load(rank_trace(2, {70}, true, {"allreduce"}, {"0"}));
  m = ks::combine_ranks({digest_of(*o0, "a", 0), digest_of(*o1, "b", 1), digest_of(*o2, "c", 2)});
  CHECK(m.result.silent_members.empty());
  CHECK(find(m.findings, "ranks.group_member_silent") == nullptr);
  // Ranks guessed from the load order are no global ranks to compare the list with.
  auto n0 = load(rank_trace(0, {50, 60}, false, {"allreduce", "allreduce"}, {"5", "5"}, {g5, g5}));
  auto n1 = load(rank_trace(1, {50, 60}, false, {"allreduce", "allreduce"}, {"5", "5"}, {g5, g5}));
  auto n2 = load(rank_trace(2, {70}, false, {"allreduce"}, {"0"}, {g0}));
  m = ks::combine_ranks({digest_of(*n0, "a", 0), digest_of(*n1, "b", 1), digest_of(*n2, "c", 2)});
  CHECK(m.result.silent_members.empty());
}
