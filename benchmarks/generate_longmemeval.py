"""Generate a LongMemEval-shaped file (the _s layout) with planted evidence, for scale measurements.

Usage: python benchmarks/generate_longmemeval.py --out /tmp/lme_synth_s.json [--questions 500]
       [--sessions 48] [--turns 10] [--seed 7]
       python benchmarks/generate_longmemeval.py --shape m --out /tmp/lme_synth_m.json

`--shape m` gives the _m layout: 500 questions x 500 sessions of 8 turns, whose distractor
sessions come from one shared pool (`--pool`, 25,000 sessions), so that, as in the real _m file,
the same session (same id, same text) appears in many questions' haystacks.

Every question gets a haystack of chat sessions with user and assistant turns of varied,
seeded filler text; one session (two for multi-session and temporal-reasoning questions)
carries a planted user statement that the question asks about, at a random turn, so it often
falls past the encoder's first 256 tokens. About 6 % of questions are abstention (`_abs`)
questions. The text is synthetic filler, not language-model output: use it for speed, memory
and relative comparisons, never as a stand-in for LongMemEval's numbers.
"""

from __future__ import annotations

import argparse
import json
import random
from datetime import datetime, timedelta
from pathlib import Path

from memrecall.data.loaders.longmemeval import QUESTION_TYPES as TYPES  # noqa: E402

TOPICS = {
    "cooking": ["recipe", "oven", "garlic", "simmer", "sauce", "dough", "spices", "skillet", "broth", "marinade"],
    "travel": ["itinerary", "hostel", "train", "passport", "luggage", "museum", "ferry", "visa", "map", "airport"],
    "fitness": ["squats", "interval", "stretching", "treadmill", "protein", "cadence", "recovery", "plank", "pace"],
    "money": ["budget", "savings", "invoice", "interest", "mortgage", "receipts", "pension", "expenses", "index"],
    "garden": ["compost", "seedlings", "mulch", "pruning", "aphids", "trellis", "watering", "soil", "bulbs"],
    "tech": ["router", "laptop", "backup", "firmware", "keyboard", "monitor", "password", "cloud", "battery"],
    "music": ["chords", "metronome", "guitar", "playlist", "rehearsal", "scales", "amplifier", "lyrics", "tempo"],
    "pets": ["leash", "vet", "kibble", "litter", "grooming", "kennel", "treats", "collar", "training"],
    "home": ["drill", "paint", "shelves", "leak", "tiles", "insulation", "curtains", "hinges", "ladder"],
    "reading": ["novel", "chapter", "library", "author", "audiobook", "poetry", "memoir", "bookmark", "series"],
}
VERBS = ["check", "compare", "plan", "organise", "adjust", "track", "review", "schedule", "improve", "choose"]
FILLER = [
    "usually",
    "often",
    "carefully",
    "quickly",
    "in the evening",
    "on weekends",
    "step by step",
    "at first",
    "for a while",
    "every few days",
    "when possible",
    "before starting",
    "after a break",
]
NAMES = [
    "Ada",
    "Bruno",
    "Chen",
    "Dara",
    "Emil",
    "Farah",
    "Goran",
    "Hana",
    "Ilse",
    "Jonas",
    "Keiko",
    "Luis",
    "Mira",
    "Nadim",
    "Olga",
    "Pavel",
    "Quinn",
    "Rosa",
    "Sami",
    "Tove",
]
THINGS = [
    "a red kayak",
    "a vintage camera",
    "a sourdough starter",
    "a folding bike",
    "a cast-iron pan",
    "a ukulele",
    "a telescope",
    "a rowing machine",
    "a bonsai tree",
    "an espresso grinder",
]
PLACES = ["Lisbon", "Osaka", "Tromso", "Cusco", "Hanoi", "Valletta", "Quebec", "Tbilisi", "Zanzibar", "Bergen"]


def sentence(rng: random.Random, topic: str) -> str:
    """One filler sentence about a topic."""
    words = TOPICS[topic]
    return (
        f"You can {rng.choice(VERBS)} the {rng.choice(words)} {rng.choice(FILLER)}, and keep the "
        f"{rng.choice(words)} and {rng.choice(words)} in mind {rng.choice(FILLER)}."
    )


def turn_text(rng: random.Random, topic: str, words: int) -> str:
    """Filler sentences until about `words` words."""
    parts: list[str] = []
    while sum(len(p.split()) for p in parts) < words:
        parts.append(sentence(rng, topic))
    return " ".join(parts)


def session(rng: random.Random, turns: int, user_words: int, assistant_words: int, fact: str | None) -> list[dict]:
    """A chat session; when `fact` is given, one user turn at a random position states it."""
    topic = rng.choice(sorted(TOPICS))
    out = []
    plant_at = rng.randrange(turns // 2) * 2 if fact else -1
    for index in range(turns):
        role = "user" if index % 2 == 0 else "assistant"
        words = user_words if role == "user" else assistant_words
        text = turn_text(rng, topic, words)
        if index == plant_at:
            text = f"{text} By the way, {fact}"
        out.append({"role": role, "content": text, "has_answer": index == plant_at})
    return out


POOL: list[list[dict]] = []


def question(rng: random.Random, number: int, args) -> dict:
    """One record with its haystack, planted evidence and a question about it."""
    qtype = TYPES[number % len(TYPES)]
    name, thing, place = rng.choice(NAMES), rng.choice(THINGS), rng.choice(PLACES)
    facts = [f"my friend {name} lent me {thing} before the trip to {place}."]
    ask = f"What did {name} lend me before I went to {place}?"
    if qtype in ("multi-session", "temporal-reasoning"):
        other = rng.choice([p for p in PLACES if p != place])
        facts.append(f"I brought {thing} back from {other} and returned it to {name}.")
        ask = f"Where did I go with the thing {name} lent me, and where did I bring it back from?"
    abstention = number % 17 == 5
    qid = f"synth{number:04d}" + ("_abs" if abstention else "")
    start = datetime(2023, 1, 1) + timedelta(days=rng.randrange(60))
    positions = rng.sample(range(args.sessions), len(facts))
    shared = iter(rng.sample(range(len(POOL)), args.sessions)) if POOL else None
    ids, dates, sessions, gold = [], [], [], []
    for index in range(args.sessions):
        session_id = f"{qid}_s{index:02d}"
        fact = facts[positions.index(index)] if index in positions else None
        if fact:
            session_id = f"answer_{session_id}"
            gold.append(session_id)
            turns = session(rng, args.turns, args.user_words, args.assistant_words, fact)
        elif shared is not None:
            pick = next(shared)
            session_id, turns = f"pool_{pick:05d}", POOL[pick]
        else:
            turns = session(rng, args.turns, args.user_words, args.assistant_words, None)
        moment = start + timedelta(days=index / 4, minutes=rng.randrange(1440))
        ids.append(session_id)
        dates.append(moment.strftime("%Y/%m/%d (%a) %H:%M"))
        sessions.append(turns)
    asked = start + timedelta(days=args.sessions + 1)
    return {
        "question_id": qid,
        "question_type": qtype,
        "question": ask,
        "answer": thing,
        "question_date": asked.strftime("%Y/%m/%d (%a) %H:%M"),
        "haystack_session_ids": ids,
        "haystack_dates": dates,
        "haystack_sessions": sessions,
        "answer_session_ids": gold,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--questions", type=int, default=500)
    parser.add_argument("--sessions", type=int, default=48)
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--user-words", type=int, default=30)
    parser.add_argument("--assistant-words", type=int, default=220)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--shape", choices=["s", "m"], default="s", help="m: 500 x 500 sessions from a shared pool")
    parser.add_argument("--pool", type=int, default=25000, help="shared distractor sessions for --shape m")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    if args.shape == "m":
        args.sessions, args.turns = 500, 8
        POOL.extend(session(rng, args.turns, args.user_words, args.assistant_words, None) for _ in range(args.pool))
    with open(args.out, "w", encoding="utf-8") as out:
        out.write("[")
        for number in range(args.questions):
            out.write(("," if number else "") + "\n" + json.dumps(question(rng, number, args)))
        out.write("\n]\n")
    print(
        f"wrote {args.out}: {args.questions} questions x {args.sessions} sessions x {args.turns} turns, "
        f"{args.out.stat().st_size / 1e6:.0f} MB"
    )


if __name__ == "__main__":
    main()
