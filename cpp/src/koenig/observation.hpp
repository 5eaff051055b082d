// Kardinal & König's observation encoder and action mask builder in C++: ports of
// kardinal_env/koenig/observation.py (ObservationEncoder.encode) and kardinal_env/koenig/actions.py
// (ActionCodec.action_mask), writing into caller-owned buffers byte for byte as the Python reference
// does. Every rule stays in the engine (koenig/engine.hpp): the encoder only reads the position.
//
// Only what the observer may know (observation.py's docstring, knowledge.card_counts): its own hand,
// and of the others only public facts. `unseen` is the whole deck per type minus the observer's hand,
// the display and the discard pile (public arithmetic), never read from the others' hands or the deck.
//
// Layout (observation.py's segment table; S sites, C countries, T card types, 5 seat slots, slot k =
// seat (observer + k) mod n): site_owner S*6, cloisters C*5, advisors C*5, turn_country C, hand T,
// display T, discard_pile T, unseen T, hand_sizes 5, cloisters_left 5, advisors_left 5, scores 5,
// projected 5, deck_size 1, runouts 3, last_round 1, phase 5, to_move 5, turn 2, own_seat 5,
// players 3, discard_any 1.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "koenig/engine.hpp"

namespace koenig {

constexpr int OBS_SLOTS = 5;   // observation.SEAT_SLOTS
constexpr int OBS_PHASES = 5;  // len(engine.PHASES)

// Removed cards per type for 3, 4, 5 players (rules.REMOVED_PER_TYPE).
inline int removed_per_type(int players) { return players == 3 ? 2 : players == 4 ? 1 : 0; }

// Segment starts of a board's observation (ObservationEncoder.segments).
struct ObsLayout {
    int site_owner, cloisters, advisors, turn_country, hand, display, pile, unseen, hand_sizes, cloisters_left,
        advisors_left, scores, projected, deck_size, runouts, last_round, phase, to_move, turn, own_seat, players,
        discard_any, size;
    explicit ObsLayout(const Board &b) {
        int at = 0;
        auto take = [&](int n) { int s = at; at += n; return s; };
        site_owner = take(b.S * (OBS_SLOTS + 1));
        cloisters = take(b.C * OBS_SLOTS);
        advisors = take(b.C * OBS_SLOTS);
        turn_country = take(b.C);
        hand = take(b.T);
        display = take(b.T);
        pile = take(b.T);
        unseen = take(b.T);
        hand_sizes = take(OBS_SLOTS);
        cloisters_left = take(OBS_SLOTS);
        advisors_left = take(OBS_SLOTS);
        scores = take(OBS_SLOTS);
        projected = take(OBS_SLOTS);
        deck_size = take(1);
        runouts = take(3);
        last_round = take(1);
        phase = take(OBS_PHASES);
        to_move = take(OBS_SLOTS);
        turn = take(2);
        own_seat = take(OBS_SLOTS);
        players = take(3);
        discard_any = take(1);
        size = at;
    }
};

inline int observation_size(const Board &b) { return ObsLayout(b).size; }

// ObservationEncoder(rules).encode(game, observer) into out (observation_size(board) floats, every
// one written). observer must be a seat of g.
inline void encode_observation(const Game &g, int observer, float *out) {
    const Board &b = *g.board;
    const ObsLayout L(b);
    const int n = g.n, P = OBS_SLOTS;
    std::memset(out, 0, sizeof(float) * size_t(L.size));
    std::array<int, MAX_SEATS> slots{};  // seat -> its slot, (seat - observer) mod n
    for (int seat = 0; seat < n; ++seat) slots[size_t(seat)] = (seat - observer + n) % n;
    auto slot = [&](int seat) { return slots[size_t(seat)]; };
    // Board block.
    for (int s = 0; s < b.S; ++s) {
        int o = g.owner[s];
        out[L.site_owner + s * (P + 1) + (o < 0 ? 0 : 1 + slot(o))] = 1.0f;
    }
    for (int c = 0; c < b.C; ++c)
        for (int seat = 0; seat < n; ++seat) {
            out[L.cloisters + c * P + slot(seat)] = float(g.cl[c * n + seat]);
            out[L.advisors + c * P + slot(seat)] = float(g.ad[c * n + seat]);
        }
    // Per-seat public values.
    std::array<int, MAX_SEATS> projected{};
    g.projected_into(projected.data());
    for (int seat = 0; seat < n; ++seat) {
        int k = slot(seat);
        out[L.hand_sizes + k] = float(g.hand_size[seat]);
        out[L.cloisters_left + k] = float(g.cl_left[seat]);
        out[L.advisors_left + k] = float(g.ad_left[seat]);
        out[L.scores + k] = float(g.scores[seat]);
        out[L.projected + k] = float(projected[seat]);
    }
    if (g.country >= 0) out[L.turn_country + g.country] = 1.0f;
    // Cards (knowledge.card_counts): own hand, display, pile, and the unseen rest.
    std::array<int, MAX_TYPES> display{}, pile{};
    for (int t : g.display) display[t] += 1;
    for (int t : g.pile) pile[t] += 1;
    const int removed = removed_per_type(n);
    for (int t = 0; t < b.T; ++t) {
        int hand = g.hands[observer][t];
        out[L.hand + t] = float(hand);
        out[L.display + t] = float(display[t]);
        out[L.pile + t] = float(pile[t]);
        out[L.unseen + t] = float(b.counts[t] - removed - hand - display[t] - pile[t]);
    }
    // Turn and deck.
    out[L.deck_size] = float(g.deck.size());
    out[L.runouts + g.runouts] = 1.0f;
    out[L.last_round] = g.last_round ? 1.0f : 0.0f;
    bool over = g.phase == OVER;
    if (over || g.current == observer) out[L.phase + g.phase] = 1.0f;
    if (!over) out[L.to_move + slot(g.current)] = 1.0f;
    out[L.turn] = float(g.pieces);
    out[L.turn + 1] = float(g.paid + g.discards);
    // Constants.
    out[L.own_seat + observer] = 1.0f;
    out[L.players + (n - 3)] = 1.0f;
    out[L.discard_any] = g.discard_any ? 1.0f : 0.0f;
}

// ActionCodec(rules).action_mask(game, seat) into out (num_moves bytes, 0 or 1; bool or int8): ones
// at the legal move ids when seat (-1: the deciding seat) decides now, zeros otherwise and once over.
inline void write_action_mask(Game &g, int seat, uint8_t *out) {
    std::memset(out, 0, size_t(g.board->num_moves));
    if (g.is_over() || (seat >= 0 && seat != g.current)) return;
    for (int m : g.legal()) out[m] = 1;
}

}  // namespace koenig
