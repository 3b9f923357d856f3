// nsys stats' --timeunit (nsec, usec, msec, sec): the reports compute in nanoseconds, as the
// export stores them; this sink shows their time columns in the unit asked for, as nsys does
// ("Total Time (us)", 183548.942). A real cell (an average or deviation, rounded to 0.1 ns) is
// divided and then printed to whole nanoseconds, so a value exactly half a nanosecond off a
// whole one can differ from nsys (which rounds once, in the new unit) in its last digit.
#include "stats/nsys_stats.h"

namespace ks {

const std::vector<TimeUnit>& time_units() {
  static const std::vector<TimeUnit> units = {
      {{"nsec", "nanoseconds", "ns"}, "(ns)", 1, 0},
      {{"usec", "microseconds", "us"}, "(us)", 1000, 3},
      {{"msec", "milliseconds", "ms"}, "(ms)", 1000000, 6},
      {{"sec", "seconds", "s"}, "(s)", 1000000000, 9},
  };
  return units;
}

const TimeUnit* find_time_unit(const std::string& name) {
  for (const TimeUnit& u : time_units())
    for (const std::string& n : u.names)
      if (n == name) return &u;
  return nullptr;
}

namespace {

class TimeUnitSink : public StatsSink {
 public:
  TimeUnitSink(const TimeUnit& unit, StatsSink* inner) : unit_(unit), inner_(inner) {}

  void row(const StatsTable& t, const std::vector<StatsCell>& cells) override {
    const StatsTable& shown = header(t);
    std::vector<StatsCell> c = cells;
    convert(&c);
    inner_->row(shown, c);
  }
  void end(const StatsTable& t) override {
    // The same table object the rows came with: a writer knows its open table by it.
    header(t);
    shown_.rows = t.rows;
    for (auto& r : shown_.rows) convert(&r);
    inner_->end(shown_);
    shown_ = {};
    in_ns_.clear();
  }

 private:
  // The table as shown (its columns renamed), made at its first row and kept until its end.
  const StatsTable& header(const StatsTable& t) {
    if (in_ns_.empty() || shown_.report != t.report) {
      shown_ = StatsTable{};
      shown_.report = t.report;
      shown_.title = t.title;
      shown_.note = t.note;
      shown_.omitted_rows = t.omitted_rows;
      in_ns_.assign(t.columns.size() + 1, false);
      in_ns_.back() = true;  // marks the header made
      const std::string ns = "(ns)";
      for (size_t c = 0; c < t.columns.size(); ++c) {
        std::string name = t.columns[c];
        if (name.size() >= ns.size() && name.compare(name.size() - ns.size(), ns.size(), ns) == 0) {
          name = name.substr(0, name.size() - ns.size()) + unit_.suffix;
          in_ns_[c] = true;
        }
        shown_.columns.push_back(name);
      }
    }
    shown_.note = t.note;
    shown_.omitted_rows = t.omitted_rows;
    return shown_;
  }
  void convert(std::vector<StatsCell>* cells) const {
    if (unit_.divisor == 1) return;
    for (size_t c = 0; c < cells->size() && c + 1 < in_ns_.size(); ++c) {
      if (!in_ns_[c]) continue;
      StatsCell& cell = (*cells)[c];
      if (cell.kind == StatsCell::Kind::kInt) {
        cell.kind = StatsCell::Kind::kReal;
        cell.r = static_cast<double>(cell.i) / static_cast<double>(unit_.divisor);
      } else if (cell.kind == StatsCell::Kind::kReal) {
        cell.r /= static_cast<double>(unit_.divisor);
      }
    }
  }

  const TimeUnit& unit_;
  StatsSink* inner_;
  StatsTable shown_;
  std::vector<bool> in_ns_;  // by column: a time column; one more entry marks the header made
};

}  // namespace

std::unique_ptr<StatsSink> make_time_unit_sink(const TimeUnit& unit, StatsSink* inner) {
  return std::make_unique<TimeUnitSink>(unit, inner);
}

}  // namespace ks
