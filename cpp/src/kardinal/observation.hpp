// Kardinal's observation encoder and action mask builder in C++: ports of
// kardinal_env/kardinal/observation.py (ObservationEncoder.encode) and kardinal_env/kardinal/actions.py
// (colour_order, seat_order, frame_window, window_layout, ActionCodec.legal_actions / action_mask),
// writing into caller-owned buffers byte for byte as the Python reference does. Every rule stays in
// the engine (kardinal/engine.hpp): the encoder only reads the position.
//
// Observation: (72, W, W) uint8, channel-first, square (x, y) at row W // 2 - y, column x + W // 2.
// Planes 0-16 are 0/1 (nave, clock tower, house/tower/yard of colour slot 0..3, cardinal, sites,
// squares of the edifice built last); planes 17-71 hold one constant each (supply, chips held, unbuilt
// edifices, cathedral touches, buildable colours, seat deciding, phase, pending chips, rule options,
// number of players), all in the observer's ego-centric slot order (observation.py's docstring is the
// table). Action ids: 17 planes of W*W squares (house, tower, horizontal yard, vertical yard per
// colour slot; the cardinal), then chip:{slot 0..3}, then C- (actions.py's docstring).
//
// Reading and writing are split so a binding can read the game while holding the GIL and write the
// large buffer without it: observe() gathers the few hundred marks and 55 constants of a position,
// write_observation() fills the buffer from them; encode_observation() does both.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "kardinal/engine.hpp"

namespace kardinal {

constexpr int OBS_CHANNELS = 72;                             // observation.NUM_CHANNELS
constexpr int OBS_SPATIAL = 17;                              // observation.SPATIAL_CHANNELS
constexpr int OBS_CONSTANTS = OBS_CHANNELS - OBS_SPATIAL;    // channels 17..71
constexpr int CH_NAVE = 0, CH_CLOCK = 1, CH_CARDINAL = 14, CH_SITES = 15, CH_LAST = 16;
constexpr int LOSSLESS_WINDOW = 53;                          // window.LOSSLESS_WINDOW (actions.DEFAULT_WINDOW)
constexpr int MIN_WINDOW = 3;
constexpr int BUILD_PLANES = 16, SPATIAL_ACTION_PLANES = 17, NON_SPATIAL_ACTIONS = 5;

// ------------------------------------------------------------------ slots (actions.py)

// actions.colour_order: the colours in slot order for seat (its own first, then the next seats',
// the neutral colour last).
inline void colour_order(const Rules &r, int seat, int out[4]) {
    int n = r.players;
    if (n == 2) {
        int other = 1 - seat;
        out[0] = 2 * seat; out[1] = 2 * seat + 1; out[2] = 2 * other; out[3] = 2 * other + 1;
    } else if (n == 3) {
        out[0] = seat; out[1] = (seat + 1) % 3; out[2] = (seat + 2) % 3; out[3] = 3;
    } else {
        for (int j = 0; j < 4; ++j) out[j] = (seat + j) % 4;
    }
}

// The slot of each colour for seat: the inverse of colour_order.
inline void slot_of_colour(const Rules &r, int seat, int out[4]) {
    int order[4];
    colour_order(r, seat, order);
    for (int j = 0; j < 4; ++j) out[order[j]] = j;
}

// actions.seat_order: the seats in slot order for seat (itself, then the following seats in turn
// order); slots n..3 get -1 (the Python encoder's None: zero planes). Returns n.
inline int seat_order(const Rules &r, int seat, int out[4]) {
    int n = r.players;
    for (int k = 0; k < 4; ++k) out[k] = k < n ? (seat + k) % n : -1;
    return n;
}

// ------------------------------------------------------------------ the window (actions.py, window.py)

// actions.frame_window: window when given (non-zero), else the rules' own window variant, else the
// lossless default.
inline int frame_window(const Rules &r, int window = 0) {
    if (window) return window;
    return r.window ? r.window : LOSSLESS_WINDOW;
}

// The checks of window.check_window and actions.window_layout: "" when a window x window frame may
// encode these rules, else the message of the ValueError the Python encoder and codec raise.
inline std::string window_error(const Rules &r, long long window) {
    if (window % 2 == 0 || window < MIN_WINDOW || window > LOSSLESS_WINDOW)
        return "window must be an odd integer from 3 to 53, got " + std::to_string(window);
    if (r.window == 0 && window != LOSSLESS_WINDOW)
        return "window " + std::to_string(window) +
               " with an unbounded rule set would lose squares; use window=53 or Rules(window=" +
               std::to_string(window) + ") (the window variant)";
    if (r.window != 0 && r.window != window)
        return "window " + std::to_string(window) + " differs from the rules' window " + std::to_string(r.window);
    return "";
}

inline void check_window(const Rules &r, long long window) {
    std::string error = window_error(r, window);
    if (!error.empty()) throw std::invalid_argument(error);
}

// actions.window_layout, one key at a time: the square index (W // 2 - y) * W + (x + W // 2) of the
// square key in a W x W window, -1 when it lies outside.
inline int window_square(int key, int window) {
    if (key < 0 || key >= KEY_LIMIT) return -1;
    int half = window / 2;
    int x = (key >> 7) - KEY_OFFSET, y = (key & 127) - KEY_OFFSET;
    if (x < -half || x > half || y < -half || y > half) return -1;
    return (half - y) * window + (x + half);
}

inline long long num_actions(int window) {
    return SPATIAL_ACTION_PLANES * (long long)window * window + NON_SPATIAL_ACTIONS;
}

// ------------------------------------------------------------------ the observation (observation.py)

// What a position shows one observer: the flat offsets (channel * W * W + square) of the ones of
// planes 0..16 and the values of channels 17..71.
struct ObservationParts {
    int window = 0;
    std::vector<int32_t> marks;
    uint8_t constants[OBS_CONSTANTS] = {};
};

// Reads the position (observer in [0, players), window already checked with check_window).
inline void observe(const Game &g, int observer, int window, ObservationParts &out) {
    const Rules &r = g.rules;
    const int n = r.players;
    const int area = window * window;
    out.window = window;
    out.marks.clear();
    auto mark = [&](int channel, int key) {
        int sq = window_square(key, window);
        if (sq >= 0) out.marks.push_back(channel * area + sq);  // every legal game stays inside (window.py)
    };
    int slot[4];
    slot_of_colour(r, observer, slot);

    // Spatial planes: the cathedral, the edifices by shape and colour slot, the cardinal, the sites,
    // the edifice built last (none before the first edifice).
    mark(CH_NAVE, g.building_square(NAVE, 0));
    mark(CH_CLOCK, g.building_square(CLOCK_TOWER, 0));
    const int buildings = g.num_buildings();
    for (int b = 2; b < buildings; ++b) {
        int channel = 2 + 4 * g.building_shape(b) + slot[g.building_colour(b)];
        for (int i = 0; i < 2; ++i)
            if (g.building_square(b, i) >= 0) mark(channel, g.building_square(b, i));
    }
    if (g.cardinal_key() >= 0) mark(CH_CARDINAL, g.cardinal_key());
    for (int16_t k : g.site_keys())
        if (g.is_site(k)) mark(CH_SITES, k);
    if (buildings > 2)
        for (int i = 0; i < 2; ++i)
            if (g.building_square(buildings - 1, i) >= 0) mark(CH_LAST, g.building_square(buildings - 1, i));

    // Constant planes, in the order of ObservationEncoder's gather tables.
    int colours[4], seats[4], mine[4];
    colour_order(r, observer, colours);
    seat_order(r, observer, seats);
    int nmine = r.seat_colours(observer, mine);
    const bool over = g.is_over();
    const int phase = g.phase();
    uint8_t *v = out.constants;
    int at = 0;
    for (int c : colours) v[at++] = uint8_t(g.supply(c));
    for (int s : seats)
        for (int c : colours) v[at++] = uint8_t(s >= 0 ? g.held(s, c) : 0);
    for (int c : colours)
        for (int shape = 0; shape < 3; ++shape) v[at++] = uint8_t(g.inventory(3 * c + shape));
    for (int s : seats) v[at++] = uint8_t(s >= 0 ? g.cathedral_touches(s) : 0);
    for (int c : colours) {
        bool buildable = false;
        for (int i = 0; i < nmine; ++i) buildable |= mine[i] == c;
        v[at++] = uint8_t(buildable);
    }
    for (int s : seats) v[at++] = uint8_t(!over && s >= 0 && s == g.current());
    for (int p = 0; p < 3; ++p) v[at++] = uint8_t(!over && phase == p);
    v[at++] = uint8_t(over ? 0 : g.pending());
    v[at++] = uint8_t(r.substitute);
    v[at++] = uint8_t(r.has_neutral() && r.neutral_put_aside);
    v[at++] = uint8_t(r.has_neutral() && !r.neutral_touch_score);
    v[at++] = uint8_t(r.shared_pool);
    for (int p = 2; p <= 4; ++p) v[at++] = uint8_t(n == p);
}

// Writes the (72, W, W) observation into out (72 * W * W bytes, C order); touches nothing else.
inline void write_observation(const ObservationParts &p, uint8_t *out) {
    const size_t area = size_t(p.window) * size_t(p.window);
    std::memset(out, 0, OBS_SPATIAL * area);
    for (int32_t offset : p.marks) out[offset] = 1;
    for (int j = 0; j < OBS_CONSTANTS; ++j) std::memset(out + (OBS_SPATIAL + j) * area, p.constants[j], area);
}

// ObservationEncoder(rules, window).encode(g, observer), written into out (72 * W * W bytes).
// std::invalid_argument for an observer out of range or a window that does not frame the rules.
inline void encode_observation(const Game &g, int observer, int window, uint8_t *out) {
    if (observer < 0 || observer >= g.rules.players) throw std::invalid_argument("observer out of range");
    check_window(g.rules, window);
    ObservationParts parts;
    observe(g, observer, window, parts);
    write_observation(parts, out);
}

// ------------------------------------------------------------------ actions (actions.py)

// ActionCodec.actions_of_codes for one move of the deciding seat: its action id in a W x W frame
// (-1 when a square lies outside the window, which no legal move of a framed game does).
inline long long action_id(const Rules &r, const Move &m, int seat, int window) {
    const long long area = (long long)window * window;
    if (m.kind == CHIP) {
        int slot[4];
        slot_of_colour(r, seat, slot);
        return SPATIAL_ACTION_PLANES * area + slot[m.colour];
    }
    if (m.kind == CARDINAL) {
        if (m.k1 < 0) return SPATIAL_ACTION_PLANES * area + 4;  // C-
        int sq = window_square(m.k1, window);
        return sq < 0 ? -1 : BUILD_PLANES * area + sq;
    }
    int slot[4];
    slot_of_colour(r, seat, slot);
    int plane;
    if (m.shape == YARD) {
        plane = (m.k2 - m.k1 == KEY_STRIDE ? 8 : 12) + slot[m.colour];
        if (window_square(m.k2, window) < 0) return -1;
    } else {
        plane = m.shape * 4 + slot[m.colour];
    }
    int sq = window_square(m.k1, window);
    return sq < 0 ? -1 : plane * area + sq;
}

// ActionCodec.legal_actions: the action ids of the current decision's legal moves for the deciding
// seat, in the order of legal() (empty once the game is over). std::logic_error if a legal move lay
// outside the window (impossible for a checked window: window.py's bound and the window variant).
inline void legal_action_ids(Game &g, int window, std::vector<long long> &out) {
    out.clear();
    if (g.is_over()) return;
    const auto &moves = g.legal();
    out.reserve(moves.size());
    const int seat = g.current();
    for (const Move &m : moves) {
        long long id = action_id(g.rules, m, seat, window);
        if (id < 0) throw std::logic_error("a legal move lies outside the window");
        out.push_back(id);
    }
}

// seat_action_mask: num_actions(window) bytes, ones at ids, zeros elsewhere.
inline void write_action_mask(const std::vector<long long> &ids, int window, uint8_t *out) {
    std::memset(out, 0, size_t(num_actions(window)));
    for (long long id : ids) out[id] = 1;
}

}  // namespace kardinal
