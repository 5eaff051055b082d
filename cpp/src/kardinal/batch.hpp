// N Kardinal games stepped together (kardinal_env.vector's "core" backend): one call plays one move in
// every game, auto-resets the games that ended (Gymnasium's SAME_STEP convention), and writes each
// game's observation of the seat to act next, its action mask, the seat, the rewards of the move and
// the final observation / scores of a game that ended into buffers the batch owns (allocated once).
//
// The readable reference is kardinal_env/vector.py's python backend (which steps the Python engine
// through the game protocol); tests/test_vector.py keeps the two byte for byte in lockstep. Rewards are
// kardinal_v0's (kardinal_env/kardinal/env.py, kardinal_env/core/rewards.py): chip_shaping times the
// chips the acting seat took with the move (0 on the move that ends the game), plus the terminal
// reward of every seat on the move that ends the game ("win_loss": +1 winners, -1 the others;
// "margin": clip((own - best other) / 20, -1, 1)).
//
// score_shaping adds rewards.ShapingTracker's other term: score_shaping times the change of the acting
// seat's projected margin (rewards.projected_margins) that its move caused (the trainer's shaping).
//
// Every game's work is independent: its Game, its legal ids, its scratch and its rows of the buffers.
// step() and reset() split the games into contiguous chunks over `threads` std::threads (the calling
// thread works one chunk); the bindings call them with the GIL released. Actions are validated for
// every game before any game moves (find_illegal), so an illegal action changes nothing.
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "common/batch.hpp"
#include "kardinal/engine.hpp"
#include "kardinal/observation.hpp"

namespace kardinal {

using batching::MARGIN_SCALE;
using batching::REWARD_MARGIN;
using batching::REWARD_WIN_LOSS;

// rewards.terminal_rewards of a finished game, per seat.
inline void terminal_rewards(const Game &g, int scheme, double out[4]) {
    batching::terminal_rewards(g.num_players(), [&g](int s) { return g.score(s); }, g.winners(), scheme, out);
}

// rewards.projected_margins of one seat: its projected final score minus the best other one.
inline double projected_margin(const Game &g, int seat) {
    int best_other = INT_MIN;
    for (int t = 0; t < g.num_players(); ++t)
        if (t != seat) best_other = std::max(best_other, g.projected_score(t));
    return double(g.projected_score(seat) - best_other);
}

inline int chips_held(const Game &g, int seat) {
    return g.held(seat, 0) + g.held(seat, 1) + g.held(seat, 2) + g.held(seat, 3);
}

class Batch : public batching::Buffers<uint8_t> {
  public:
    Batch(const Rules &rules, int num_envs, int reward_scheme, double chip_shaping, double score_shaping = 0.0)
        : start_(rules), n_(num_envs), players_(rules.players), window_(frame_window(rules)),
          scheme_(reward_scheme), chip_shaping_(chip_shaping), score_shaping_(score_shaping) {
        if (num_envs < 1) throw std::invalid_argument("num_envs must be at least 1");
        if (reward_scheme != REWARD_WIN_LOSS && reward_scheme != REWARD_MARGIN)
            throw std::invalid_argument("reward scheme must be win_loss (0) or margin (1)");
        check_window(rules, window_);
        obs_size_ = size_t(OBS_CHANNELS) * size_t(window_) * size_t(window_);
        actions_ = size_t(num_actions(window_));
        const size_t n = size_t(n_);
        allocate(n, size_t(players_), obs_size_, actions_);
        games_.assign(n, start_);
        ids_.assign(n, {});
        history_.assign(n, {});
        parts_.assign(n, {});
        shown_.assign(n, {});
        for (auto &p : shown_) p.window = window_;
        chosen_.assign(n, -1);
        reset(0);
    }

    int num_envs() const { return n_; }
    int players() const { return players_; }
    int window() const { return window_; }
    size_t observation_size() const { return obs_size_; }
    size_t action_count() const { return actions_; }
    const Rules &rules() const { return start_.rules; }
    const std::vector<long long> &legal_ids(int i) const { return ids_[size_t(i)]; }
    const std::vector<Move> &history(int i) const { return history_[size_t(i)]; }
    const Game &game(int i) const { return games_[size_t(i)]; }

    // Every game back to the start; the buffers show the first decisions, rewards and terminated are 0.
    void reset(int threads) {
        for_chunks(threads, [this](int begin, int end) {
            for (int i = begin; i < end; ++i) {
                games_[size_t(i)] = start_;
                history_[size_t(i)].clear();
                std::fill_n(rewards.begin() + long(i) * players_, players_, 0.0f);
                terminated[size_t(i)] = 0;
                show(i);
            }
        });
    }

    // The first game whose action is not one of its legal ids, or -1 when every action is legal (then
    // the positions found are remembered for step()). Touches no game.
    long long find_illegal(const int64_t *actions) {
        for (int i = 0; i < n_; ++i) {
            const auto &ids = ids_[size_t(i)];
            auto at = std::find(ids.begin(), ids.end(), (long long)actions[i]);
            if (at == ids.end()) return i;
            chosen_[size_t(i)] = int32_t(at - ids.begin());
        }
        return -1;
    }

    // One move in every game: the legal moves found by the last find_illegal() that returned -1.
    void step(int threads) {
        for_chunks(threads, [this](int begin, int end) {
            for (int i = begin; i < end; ++i) step_game(i);
        });
    }

  private:
    Game start_;
    int n_, players_, window_, scheme_;
    double chip_shaping_, score_shaping_;
    size_t obs_size_ = 0, actions_ = 0;
    std::vector<Game> games_;
    std::vector<std::vector<long long>> ids_;   // the legal action ids of each game's current decision
    std::vector<std::vector<Move>> history_;   // each game's moves so far (error messages, inspection)
    std::vector<ObservationParts> parts_;      // each game's encoder scratch
    std::vector<ObservationParts> shown_;      // what each row of `observation` shows now (all zero at first)
    std::vector<int32_t> chosen_;              // each game's move for step(): its index in legal()

    // Game i's current decision into ids_, observation, action_mask and current_player. The rows are
    // rewritten where they change only: the mask's old ones are cleared and the new ones set; the
    // observation's old spatial ones (shown_) are cleared and the new ones set, and a constant plane is
    // refilled only when its value changed. Exact because nothing else writes these rows (the arrays are
    // read-only to their users, vector.py's docstring), and ~20x less memory traffic than a whole write
    // of the (72, W, W) window (~200 KB at W = 53) per step.
    void show(int i) {
        Game &g = games_[size_t(i)];
        const size_t row = size_t(i);
        uint8_t *mask = action_mask.data() + row * actions_;
        for (long long id : ids_[row]) mask[id] = 0;
        legal_action_ids(g, window_, ids_[row]);
        for (long long id : ids_[row]) mask[id] = 1;
        current_player[row] = g.current();
        observe(g, g.current(), window_, parts_[row]);
        update_observation(row);
    }

    // Row `row` of the observation from shown_[row] to parts_[row]; then shown_[row] is what it shows.
    void update_observation(size_t row) {
        const ObservationParts &now = parts_[row], &was = shown_[row];
        const size_t area = size_t(window_) * size_t(window_);
        uint8_t *out = observation.data() + row * obs_size_;
        for (int32_t offset : was.marks) out[offset] = 0;
        for (int32_t offset : now.marks) out[offset] = 1;
        for (int j = 0; j < OBS_CONSTANTS; ++j)
            if (now.constants[j] != was.constants[j])
                std::memset(out + (OBS_SPATIAL + j) * area, now.constants[j], area);
        std::swap(parts_[row], shown_[row]);  // parts_[row] is scratch again
    }

    void step_game(int i) {
        const size_t row = size_t(i);
        Game &g = games_[row];
        const int seat = g.current();
        const int before = chip_shaping_ != 0.0 ? chips_held(g, seat) : 0;
        const double margin_before = score_shaping_ != 0.0 ? projected_margin(g, seat) : 0.0;
        const Move m = g.legal()[size_t(chosen_[row])];
        history_[row].push_back(m);
        g.apply(m);
        double earned[4] = {0.0, 0.0, 0.0, 0.0};
        // rewards.ShapingTracker.reward, term by term in its order
        if (chip_shaping_ != 0.0) earned[seat] += chip_shaping_ * double(g.is_over() ? 0 : chips_held(g, seat) - before);
        if (score_shaping_ != 0.0) earned[seat] += score_shaping_ * (projected_margin(g, seat) - margin_before);
        const bool over = g.is_over();
        terminated[row] = over;
        if (over) {
            double final_rewards[4];
            terminal_rewards(g, scheme_, final_rewards);
            for (int s = 0; s < players_; ++s) {
                earned[s] += final_rewards[s];
                final_scores[row * size_t(players_) + size_t(s)] = g.score(s);
                final_winners[row * size_t(players_) + size_t(s)] = 0;
            }
            for (int w : g.winners()) final_winners[row * size_t(players_) + size_t(w)] = 1;
            final_moves[row] = g.move_count();
            final_player[row] = seat;
            observe(g, seat, window_, parts_[row]);
            write_observation(parts_[row], final_observation.data() + row * obs_size_);
            g = start_;
            history_[row].clear();
        }
        for (int s = 0; s < players_; ++s) rewards[row * size_t(players_) + size_t(s)] = float(earned[s]);
        show(i);
    }

    // work(begin, end) over contiguous chunks of the games on `threads` threads (common/batch.hpp).
    template <class Work>
    void for_chunks(int threads, Work work) {
        batching::for_chunks(n_, threads, work);
    }
};

}  // namespace kardinal
