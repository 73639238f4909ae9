"""Flat integer layouts shared by the kernels: the rules vector and the state.

Pure constants, importable from anywhere (no numba, no facade); the sizes
that follow from the tile set come from :mod:`dominoai.tiles`. A *rules
vector* ``rv`` is an ``int64`` array of length ``R_SIZE`` built by
``Rules.vector()``; a *state* ``st`` is an ``int64`` array of length
``S_SIZE`` holding one match in progress (the current hand and the match
fields); events go to a separate ``int64`` array of shape ``(MAX_EVENTS, 4)``.

State offsets (``st[S_...]``):

=================  =========================================================
``S_HAND+i``       tile mask of seat i (i < 4)
``S_CUR``          seat to decide now; -1 when the hand is over
``S_LEADER``       seat that leads (led) this hand
``S_NPLAYED``      tiles on the line
``S_BONE_POS``     index in ``S_BONE`` of the next tile drawn
``S_BONE_END``     number of tiles in the boneyard at the deal
``S_END_PIP+k``    open pip of end k (0 left, 1 right, 2 up, 3 down), -1 closed
``S_END_KIND+k``   0 plain, 1 double (counts twice), 2 unplayed spinner side
``S_CAND+k``       spinner/base candidate double at left/right end, -1
``S_SPIN``         0 no spinner yet, 1 spinner chosen (closed), 2 open
``S_SPIN_TILE``    the spinner/base tile, -1
``S_MUST``         the tile that must be played now (forced lead or drawn), -1
``S_LAST``         seat that laid the last tile
``S_STATUS``       0 playing, 1 domino, 2 blocked, 3 cut short (target)
``S_WINNER``       winning side of the hand, -1
``S_WIN_SEAT``     seat that won (went out, or lightest), -1
``S_POINTS+s``     points (strikes) side s made in this hand
``S_SCORE+s``      match score of side s (hand points added at hand end)
``S_REPL+i``       replacements seat i used in this match
``S_PLAYED``       mask of tiles on the line
``S_LEAD_TILE``    the lead tile, -1
``S_NEVENTS``      events logged in this hand
``S_LOG``          1 to log events, 0 not (rollouts)
``S_CARRY``        Kozel eggs carried into the next hand
``S_HAND_NO``      hands started in this match (1 during the first)
``S_MATCH_OVER``   1 once the match is decided
``S_MATCH_WINNER`` winning side of the match, -1 (none / tie)
``S_BONE+j``       boneyard in draw order (``N_TILES`` slots)
``S_VOID+i``       pips seat i is publicly known not to hold now (bit p = pip p)
=================  =========================================================
"""

from ..tiles import N_TILES

# ---- rules vector -------------------------------------------------------
R_PLAYERS = 0
R_HAND_SIZE = 1
R_PARTNERS = 2          # 1: seats 0+2 vs 1+3
R_DRAWING = 3           # 1: a seat that cannot play draws
R_RESERVE = 4           # boneyard tiles that are never drawn
R_SPINNER = 5           # SPIN_NONE / SPIN_FIRST_DOUBLE / SPIN_BASE_DOUBLE
R_END_SCORING = 6       # ENDS_NONE / ENDS_POINTS / ENDS_STRIKES
R_ZERO_LEAD = 7         # strikes for leading 0:0 as the first tile
R_FIRST_LEAD = 8        # LEAD_LOT / LEAD_HIGHEST_DOUBLE / LEAD_TILE / LEAD_SEAT0
R_FIRST_LEAD_TILE = 9   # tile id for LEAD_TILE
R_NEXT_LEAD = 10        # NEXT_WINNER / NEXT_LAST_LAYER / NEXT_AFTER_LEADER
R_HAND_SCORING = 11     # HS_OTHERS_MINUS_OWN / HS_OTHERS / HS_LOSERS_RECORD / HS_STRIKES
R_ROUND = 12            # round hand-end points to the nearest multiple (1 = none)
R_BLOCKED_TIE = 13      # TIE_NOBODY / TIE_LEADER_ORDER
R_WINNER_BY = 14        # WIN_DOMINO_OR_LIGHTEST / WIN_LIGHTEST
R_SCORE_OWN_PAIR = 15   # 1: a winning pair also scores its own pips
R_ALONE_00 = 16         # a hand of only 0:0 counts this much (0 = its pips)
R_TARGET = 17
R_TARGET_MODE = 18      # TARGET_REACH_WINS / TARGET_REACH_LOSES
R_INSTANT = 19          # 1: reaching the target ends the match at once
R_MATCH_HANDS = 20      # 0: hands until the target; 1: one-hand match
R_MAX_REPL = 21         # replacements per seat per match
R_FREE_REPL = 22        # of which free
R_SIZE = 24

SPIN_NONE, SPIN_FIRST_DOUBLE, SPIN_BASE_DOUBLE = 0, 1, 2
ENDS_NONE, ENDS_POINTS, ENDS_STRIKES = 0, 1, 2
LEAD_LOT, LEAD_HIGHEST_DOUBLE, LEAD_TILE, LEAD_SEAT0 = 0, 1, 2, 3
NEXT_WINNER, NEXT_LAST_LAYER, NEXT_AFTER_LEADER = 0, 1, 2
HS_OTHERS_MINUS_OWN, HS_OTHERS, HS_LOSERS_RECORD, HS_STRIKES = 0, 1, 2, 3
TIE_NOBODY, TIE_LEADER_ORDER = 0, 1
WIN_DOMINO_OR_LIGHTEST, WIN_LIGHTEST = 0, 1
TARGET_REACH_WINS, TARGET_REACH_LOSES = 0, 1

# ---- state --------------------------------------------------------------
S_HAND = 0
S_CUR = 4
S_LEADER = 5
S_NPLAYED = 6
S_BONE_POS = 7
S_BONE_END = 8
S_END_PIP = 9
S_END_KIND = 13
S_CAND = 17
S_SPIN = 19
S_SPIN_TILE = 20
S_MUST = 21
S_LAST = 22
S_STATUS = 23
S_WINNER = 24
S_WIN_SEAT = 25
S_POINTS = 26
S_SCORE = 30
S_REPL = 34
S_PLAYED = 38
S_LEAD_TILE = 39
S_NEVENTS = 40
S_LOG = 41
S_CARRY = 42
S_HAND_NO = 43
S_MATCH_OVER = 44
S_MATCH_WINNER = 45
S_PLAYERS = 46
S_BONE = 48
S_VOID = S_BONE + N_TILES
S_SIZE = S_VOID + 4

ST_PLAYING, ST_DOMINO, ST_BLOCKED, ST_CUT = 0, 1, 2, 3

# ---- events -------------------------------------------------------------
MAX_EVENTS = 256
EV_PLAY, EV_DRAW, EV_PASS, EV_REPLACE = 0, 1, 2, 3
# event row: (kind, seat, tile or count, end or pips): for a play the tile and
# end; for a draw the count and the bit set of the open pips it was made on
# (bit p = pip p); for a pass 0 and that bit set; for a replacement 1 and -1.

# ---- moves --------------------------------------------------------------
# A move code is tile * 4 + end (N_ENDS ends: 0 left, 1 right, 2 up, 3 down),
# or MOVE_REPLACE. The lead uses end 0 (higher pip on the left) or end 1
# (lower pip on the left).
N_ENDS = 4
MOVE_REPLACE = N_TILES * N_ENDS
MAX_MOVES = MOVE_REPLACE + 1

# ---- move errors (check_move) -------------------------------------------
ERR_OK = 0
ERR_HAND_OVER = 1
ERR_NOT_HELD = 2
ERR_END_CLOSED = 3
ERR_NO_MATCH = 4
ERR_MUST_PLAY = 5
ERR_NO_REPLACE = 6
ERR_BAD_END = 7
