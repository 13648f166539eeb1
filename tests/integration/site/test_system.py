"""The system libraries the app relies on are present (make install puts them there)."""


def test_weasyprint_finds_pango_and_renders_a_pdf():
    from weasyprint import HTML

    pdf = HTML(string="<h1>Far Future Action</h1>").write_pdf()

    assert pdf.startswith(b"%PDF-")
