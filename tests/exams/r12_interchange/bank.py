"""Questions of every mapped type, with the characters each format must escape."""
from exams.questions.rules import normalise_question

TRICKY = 'Tricky ~ = # { } : \\ & < > " \' ]]> and\na second line'

RAW = [
    {"question_text": "<p>Which is the <b>powerhouse</b>?</p>", "question_type": "mcq", "option_a": "Nucleus",
     "option_b": "Mitochondrion", "option_c": "Ribosome", "option_d": "Golgi", "correct_answer": "B", "marks": 2,
     "difficulty": "easy"},
    {"question_text": TRICKY, "question_type": "mcq", "option_a": "a ~ b", "option_b": "{x} = #1: y",
     "correct_answer": "A", "marks": 1.5, "difficulty": "medium"},
    {"question_text": "Which are prime?", "question_type": "multi_select", "option_a": "2", "option_b": "3",
     "option_c": "4", "correct_answers": ["A", "B"], "marks": 3, "difficulty": "hard"},
    {"question_text": "Three of four", "question_type": "multi_select", "option_a": "w", "option_b": "x",
     "option_c": "y", "option_d": "z", "correct_answers": ["A", "B", "D"], "marks": 1, "difficulty": "medium"},
    {"question_text": "The sun rises in the east.", "question_type": "true_false", "correct_answer": "A",
     "marks": 1, "difficulty": "easy"},
    {"question_text": "Water boils at 50 C.", "question_type": "true_false", "correct_answer": "B", "marks": 1,
     "difficulty": "medium"},
    {"question_text": "Capital of France: ____", "question_type": "fill_blank",
     "correct_answers": ["Paris", "paris = city {of light}"], "case_sensitive": True, "marks": 2,
     "difficulty": "medium"},
    {"question_text": "A colour", "question_type": "fill_blank", "correct_answers": ["red"], "marks": 1,
     "difficulty": "easy"},
    {"question_text": "Explain osmosis.", "question_type": "subjective",
     "correct_answer": "Water crosses a membrane ]]> <b>bold</b>", "marks": 5, "difficulty": "hard"},
    {"question_text": "Tell us anything.", "question_type": "subjective", "marks": 1, "difficulty": "medium"},
]

KEYS = ("question_text", "question_type", "option_a", "option_b", "option_c", "option_d", "correct_answer",
        "correct_answers", "marks", "difficulty", "case_sensitive")


def bank() -> list[dict]:
    return [{**normalise_question(q), "id": f"q{i}", "client_id": "c1", "folder_id": "f"} for i, q in enumerate(RAW)]


def comparable(q: dict) -> dict:
    return {k: q.get(k) for k in KEYS}
