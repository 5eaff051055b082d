// N Kardinal & König games stepped together (kardinal_env.vector's "core" backend for K&K): one call
// plays one move in every game, deals a new game in the slots whose game ended (Gymnasium's SAME_STEP
// auto-reset), and writes each game's observation of the seat to act next (koenig/observation.hpp,
// the ObservationEncoder's float32 vector), its action mask, the seat, every seat's reward of the move
// and the final observation / scores of a game that ended into buffers the batch owns (allocated once).
//
// The readable reference is kardinal_env/vector.py's python backend; tests/test_vector_koenig.py keeps
// the two byte for byte in lockstep. Rewards are kardinal_koenig_v1's: no per-move term, and on the
// move that ends a game every seat's terminal reward (common/batch.hpp).
//
// Seeds: a game started in slot i (reset or auto-reset) is dealt with next_seed[i], a buffer the
// caller fills (VectorEnv writes the slot generator's getrandbits(64), drawn ahead, and refills the
// slots that were dealt from); the seed each game was dealt with is kept (seed(i)) so the game can be
// rebuilt in Python from its seed and its move ids.
//
// Every game's work is independent (its Game, its rows of the buffers), so step() and reset() may
// split the games over std::threads (batching::for_chunks); the bindings call them with the GIL
// released. find_illegal() checks every action before any game moves.
#pragma once

#include <climits>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

#include "common/batch.hpp"
#include "koenig/engine.hpp"
#include "koenig/observation.hpp"

namespace koenig {

class Batch : public batching::Buffers<float> {
  public:
    std::vector<uint64_t> next_seed;       // (N,): the seed of the next game dealt in each slot (the caller's)

    Batch(std::shared_ptr<const Board> board, int players, bool discard_any, int num_envs, int reward_scheme,
          double score_shaping = 0.0)
        : board_(std::move(board)), n_(num_envs), players_(players), any_(discard_any), scheme_(reward_scheme),
          score_shaping_(score_shaping) {
        if (!board_) throw std::invalid_argument("a board is needed");
        if (num_envs < 1) throw std::invalid_argument("num_envs must be at least 1");
        if (reward_scheme != batching::REWARD_WIN_LOSS && reward_scheme != batching::REWARD_MARGIN)
            throw std::invalid_argument("reward scheme must be win_loss (0) or margin (1)");
        obs_size_ = size_t(observation_size(*board_));
        actions_ = size_t(board_->num_moves);
        const size_t n = size_t(n_);
        allocate(n, size_t(players_), obs_size_, actions_);
        next_seed.assign(n, 0);
        seeds_.assign(n, 0);
        games_.reserve(n);
        for (size_t i = 0; i < n; ++i) games_.emplace_back(board_, players_, any_, 0, std::nullopt, std::nullopt);
        reset(0);
    }

    int num_envs() const { return n_; }
    int players() const { return players_; }
    size_t observation_length() const { return obs_size_; }
    size_t action_count() const { return actions_; }
    const Game &game(int i) const { return games_[size_t(i)]; }
    uint64_t seed(int i) const { return seeds_[size_t(i)]; }
    MoveSpan legal_ids(int i) { return games_[size_t(i)].legal(); }

    // A new game in every slot, dealt with next_seed; the buffers show the first decisions, rewards
    // and terminated are 0.
    void reset(int threads) {
        batching::for_chunks(n_, threads, [this](int begin, int end) {
            for (int i = begin; i < end; ++i) {
                deal(i);
                std::fill_n(rewards.begin() + long(i) * players_, players_, 0.0f);
                terminated[size_t(i)] = 0;
                show(i);
            }
        });
    }

    // The first game whose action is not one of its legal ids, or -1 when every action is legal.
    // Touches no game's position.
    long long find_illegal(const int64_t *actions) {
        for (int i = 0; i < n_; ++i) {
            const int64_t a = actions[i];
            if (a < 0 || a >= int64_t(actions_)) return i;
            bool found = false;
            for (int m : games_[size_t(i)].legal())
                if (m == a) {
                    found = true;
                    break;
                }
            if (!found) return i;
        }
        return -1;
    }

    // One move in every game (actions: checked by a find_illegal() that returned -1).
    void step(const int64_t *actions, int threads) {
        batching::for_chunks(n_, threads, [this, actions](int begin, int end) {
            for (int i = begin; i < end; ++i) step_game(i, int(actions[i]));
        });
    }

  private:
    std::shared_ptr<const Board> board_;
    int n_, players_;
    bool any_;
    int scheme_;
    double score_shaping_;
    size_t obs_size_ = 0, actions_ = 0;
    std::vector<Game> games_;
    std::vector<uint64_t> seeds_;  // the seed each slot's current game was dealt with

    void deal(int i) {
        const size_t row = size_t(i);
        seeds_[row] = next_seed[row];
        games_[row] = Game(board_, players_, any_, seeds_[row], std::nullopt, std::nullopt);
    }

    // Game i's current decision into observation, action_mask and current_player.
    void show(int i) {
        const size_t row = size_t(i);
        Game &g = games_[row];
        current_player[row] = g.current;
        encode_observation(g, g.current, observation.data() + row * obs_size_);
        write_action_mask(g, -1, action_mask.data() + row * actions_);
    }

    // rewards.projected_margins of one seat: its projected final score minus the best other one.
    static double projected_margin(const Game &g, int seat) {
        int projected[MAX_SEATS];
        g.projected_into(projected);
        int best_other = INT_MIN;
        for (int t = 0; t < g.n; ++t)
            if (t != seat) best_other = std::max(best_other, projected[t]);
        return double(projected[seat] - best_other);
    }

    void step_game(int i, int action) {
        const size_t row = size_t(i), p = size_t(players_);
        Game &g = games_[row];
        const int seat = g.current;
        const double margin_before = score_shaping_ != 0.0 ? projected_margin(g, seat) : 0.0;
        g.apply(action);
        const bool over = g.is_over();
        terminated[row] = over;
        float *earned = rewards.data() + row * p;
        // rewards.ShapingTracker.reward of the acting seat (K&K has no chips: the score term only)
        const double shaped = score_shaping_ != 0.0 ? score_shaping_ * (projected_margin(g, seat) - margin_before) : 0.0;
        if (over) {
            double final_rewards[MAX_SEATS];
            batching::terminal_rewards(players_, [&g](int s) { return g.scores[size_t(s)]; }, g.winners, scheme_,
                                       final_rewards);
            for (size_t s = 0; s < p; ++s) {
                earned[s] = float((int(s) == seat ? shaped : 0.0) + final_rewards[s]);
                final_scores[row * p + s] = g.scores[s];
                final_winners[row * p + s] = 0;
            }
            for (int w : g.winners) final_winners[row * p + size_t(w)] = 1;
            final_moves[row] = g.move_count();
            final_player[row] = seat;
            encode_observation(g, seat, final_observation.data() + row * obs_size_);
            deal(i);
        } else {
            std::fill_n(earned, p, 0.0f);
            earned[seat] = float(shaped);
        }
        show(i);
    }
};

}  // namespace koenig
