"""A teacher's class code opens the same seeded release and view on a student's screen; fresh releases
and uploads are not shared, and a wrong code is said in words."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

PAGE = """
from psdviz.ui import map_page, mapview
mapview.show_map = lambda *a, **k: {}
map_page.render()
"""


def _page() -> AppTest:
    at = AppTest.from_string(PAGE, default_timeout=180)
    at.run()
    assert not at.exception
    return at


def _release_line(at) -> str:
    return next(m.value for m in at.markdown if "PRIVATE release" in m.value or "NOT PRIVATE" in m.value)


def test_a_class_code_opens_the_teachers_seeded_release_on_a_students_screen():
    teacher = _page()
    assert any("Sharing needs a seeded run" in i.value for i in teacher.info)        # fresh: not shared
    teacher.selectbox(key="method").set_value("ug").run()
    teacher.select_slider(key="epsilon").set_value(1.0).run()
    teacher.radio(key="rand_mode").set_value("seed").run()
    teacher.number_input(key="seed").set_value(11).run()
    teacher.button(key="lesson_btn").click().run()
    code = teacher.session_state["lesson_made"]
    assert len(code) == 6 and any(code in m.value for m in teacher.markdown)
    assert any(f"?lesson={code}" in c.value for c in teacher.code)

    student = _page()
    student.text_input(key="lesson_code").set_value(code.lower()).run()
    assert not student.exception and not student.error
    assert student.selectbox(key="method").value == "ug" and student.select_slider(key="epsilon").value == 1.0
    assert student.radio(key="rand_mode").value == "seed" and student.number_input(key="seed").value == 11
    assert _release_line(student) == _release_line(teacher)          # the same release: cells, nodes, height
    student.select_slider(key="epsilon").set_value(0.5).run()         # the student may change it afterwards
    assert student.select_slider(key="epsilon").value == 0.5


def test_a_wrong_code_is_said_in_words():
    at = _page()
    at.text_input(key="lesson_code").set_value("ZZZZZZ").run()
    assert not at.exception and any("No lesson with the code ZZZZZZ" in e.value for e in at.error)


def test_the_link_opens_the_lesson_too():
    from psdviz.ui.share import make_code
    code = make_code({"method": "quadtree", "epsilon": 0.1, "rand_mode": "seed", "seed": 5})
    at = AppTest.from_string(PAGE, default_timeout=180)
    at.query_params["lesson"] = code
    at.run()
    assert not at.exception and at.selectbox(key="method").value == "quadtree"
    assert at.select_slider(key="epsilon").value == 0.1 and at.number_input(key="seed").value == 5
