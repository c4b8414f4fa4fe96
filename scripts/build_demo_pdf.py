"""Build demo/master-services-agreement.pdf (a fictitious contract written for
DocuIQ's demo). Run once; the PDF is committed.  .venv/bin/python scripts/build_demo_pdf.py"""

from __future__ import annotations

from pathlib import Path

from fpdf import FPDF

TITLE = "MASTER SERVICES AGREEMENT"
SECTIONS = [
    (
        "",
        'This Master Services Agreement (the "Agreement") is entered into as of March 1, 2024 (the "Effective Date") by and between Northwind Analytics LLC, a Delaware limited liability company (the "Supplier"), and Contoso Legal Group LLP, a New York limited liability partnership (the "Customer"). The Supplier and the Customer are each a "Party" and together the "Parties".',
    ),
    (
        "1. Definitions",
        '"Services" means the document analytics, hosting and support services described in each Statement of Work. "Statement of Work" means a document signed by both Parties that references this Agreement. "Confidential Information" means all non-public information disclosed by a Party, whether oral or written, that is marked confidential or would reasonably be understood to be confidential. "Fees" means the amounts payable by the Customer under Section 4.',
    ),
    (
        "2. Services",
        "The Supplier shall provide the Services described in each Statement of Work with the degree of skill and care expected of a competent provider of similar services. The Supplier shall not subcontract any material part of the Services without the prior written consent of the Customer, which shall not be unreasonably withheld. The Supplier shall deliver each deliverable within 30 days of the date on which the relevant Statement of Work is signed, unless the Statement of Work states otherwise.",
    ),
    (
        "3. Service Levels",
        "The Supplier shall make the hosted platform available 99.9% of the time in each calendar month, excluding scheduled maintenance announced at least 48 hours in advance. If availability falls below 99.5% in any month, the Customer shall be entitled to a service credit equal to 10% of the monthly Fees for the affected Services. Service credits are the Customer's sole and exclusive remedy for failure to meet the availability commitment.",
    ),
    (
        "4. Fees and Payment",
        "The Customer shall pay the Fees set out in each Statement of Work. The Supplier shall invoice the Fees monthly in arrears. The Customer shall pay each undisputed invoice within thirty (30) days of receipt. Late payments shall bear interest at the rate of 1.5% per month or the maximum rate permitted by law, whichever is lower. The Customer may withhold payment of any amount it disputes in good faith, provided that it notifies the Supplier in writing of the dispute within fifteen (15) days of receipt of the invoice. All Fees are exclusive of taxes, which the Customer shall pay except for taxes on the Supplier's income.",
    ),
    (
        "5. Term and Termination",
        "This Agreement commences on the Effective Date and continues for an initial term of three (3) years, after which it renews automatically for successive one-year terms unless either Party gives written notice of non-renewal at least ninety (90) days before the end of the then-current term. Either Party may terminate this Agreement for convenience upon ninety (90) days' prior written notice to the other Party. Either Party may terminate this Agreement immediately by written notice if the other Party commits a material breach and fails to cure it within thirty (30) days after receiving notice of the breach. Upon termination the Supplier shall return or destroy all Customer data within sixty (60) days, at the Customer's option.",
    ),
    (
        "6. Confidentiality",
        "Each Party shall keep the other Party's Confidential Information confidential and shall not use it except to perform its obligations under this Agreement. A Party may disclose Confidential Information to its employees and advisers who need to know it and are bound by obligations of confidentiality no less protective than these. These obligations do not apply to information that is or becomes public without breach of this Agreement, or that a Party is required by law to disclose. The obligations in this Section shall survive for five (5) years after the termination or expiry of this Agreement.",
    ),
    (
        "7. Intellectual Property",
        "The Customer owns all documents and data it uploads to the Services. The Supplier owns the platform, its software and all improvements to them. The Supplier grants the Customer a non-exclusive, non-transferable licence to use the Services during the term. The Supplier shall not use Customer data to train any machine learning model without the Customer's prior written consent.",
    ),
    (
        "8. Indemnification",
        "The Supplier shall indemnify and hold harmless the Customer against any claim that the Services infringe the intellectual property rights of a third party, provided that the Customer notifies the Supplier promptly of the claim and allows the Supplier to control its defence. The Customer shall indemnify the Supplier against any claim arising from data uploaded by the Customer in breach of applicable law.",
    ),
    (
        "9. Limitation of Liability",
        "Except for breach of Section 6 or a Party's indemnification obligations, neither Party shall be liable for any indirect, incidental or consequential damages, or for loss of profits, revenue or data. Each Party's total liability under this Agreement shall not exceed the Fees paid or payable by the Customer in the twelve (12) months preceding the event giving rise to the claim. Nothing in this Agreement limits liability for fraud, gross negligence or wilful misconduct.",
    ),
    (
        "10. Insurance",
        "The Supplier shall maintain, at its own cost, professional indemnity insurance of not less than $5,000,000 per claim and cyber liability insurance of not less than $10,000,000 in the aggregate, and shall provide certificates of insurance on request.",
    ),
    (
        "11. Assignment",
        "Neither Party may assign this Agreement without the prior written consent of the other Party, except that either Party may assign it without consent to a successor in connection with a merger, acquisition or sale of all or substantially all of its assets, provided that the successor agrees in writing to be bound by this Agreement. A change of control of the Supplier shall be notified to the Customer within ten (10) business days.",
    ),
    (
        "12. Governing Law and Disputes",
        "This Agreement is governed by the laws of the State of New York, without regard to its conflict of laws rules. The Parties shall first attempt to resolve any dispute through good-faith negotiation between senior executives for a period of thirty (30) days. Any dispute not so resolved shall be submitted to the exclusive jurisdiction of the state and federal courts located in New York County, New York.",
    ),
    (
        "13. Notices",
        "Notices under this Agreement shall be in writing and delivered by hand, by courier or by email with confirmation of receipt to the addresses set out in the signature block. A notice is effective on receipt, except that a notice received after 5:00 p.m. on a business day is effective on the next business day.",
    ),
    (
        "14. General",
        "This Agreement, together with its Statements of Work, is the entire agreement between the Parties and supersedes all prior agreements on its subject matter. No amendment is effective unless it is in writing and signed by both Parties. If any provision is held unenforceable, the remaining provisions remain in full force. No failure or delay in exercising a right operates as a waiver of it.",
    ),
    (
        "Signatures",
        "Signed for Northwind Analytics LLC by Maria Chen, Chief Executive Officer, on March 1, 2024. Signed for Contoso Legal Group LLP by David Okafor, Managing Partner, on March 1, 2024.",
    ),
]


def main() -> None:
    pdf = FPDF(format="Letter")
    pdf.set_auto_page_break(auto=True, margin=22)
    pdf.set_margins(25, 22, 25)
    pdf.set_title(TITLE.title())
    pdf.set_author("DocuIQ demo")

    def footer() -> None:
        pdf.set_y(-15)
        pdf.set_font("Helvetica", size=8)
        pdf.cell(0, 10, f"Page {pdf.page_no()}", align="C")

    pdf.footer = footer
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 15)
    pdf.multi_cell(0, 9, TITLE, align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    for heading, body in SECTIONS:
        if heading:
            pdf.set_font("Helvetica", "B", 11)
            pdf.multi_cell(0, 7, heading, new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", size=10.5)
        pdf.multi_cell(0, 5.6, body, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(3)
    out = (
        Path(__file__).resolve().parent.parent
        / "demo"
        / "master-services-agreement.pdf"
    )
    pdf.output(str(out))
    print(out, pdf.page_no(), "pages")


if __name__ == "__main__":
    main()
