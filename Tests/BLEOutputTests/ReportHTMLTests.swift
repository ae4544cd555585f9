import Testing

@testable import BLEOutput

/// The report's markup helpers: every text from a capture is escaped, numbers are short.
@Suite("report HTML")
struct ReportHTMLTests {
  static func html(_ body: (inout OutputBuffer) -> Void) -> String {
    var out = OutputBuffer(fd: -1)
    body(&out)
    return String(decoding: out.bytes, as: UTF8.self)
  }

  @Test("a device name that is markup stays text, in content and in attributes")
  func escapes() {
    // An advertised name chosen to break out of an element or an attribute value.
    let name = "</td><script>alert('x')</script>\"&"
    let text = Self.html { $0.appendHTML(name) }
    #expect(text == "&lt;/td&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;&amp;")
    #expect(Self.html { $0.appendElement("td", "a<b") } == "<td>a&lt;b</td>")
    #expect(Self.html { $0.appendHTML("Mhealth2-5C54 ✓") } == "Mhealth2-5C54 ✓")
  }

  @Test("sort values and coordinates: at most three decimals, no trailing zeros")
  func numbers() {
    #expect(ReportNumber.text(12) == "12")
    #expect(ReportNumber.text(12.5) == "12.5")
    #expect(ReportNumber.text(0.125) == "0.125")
    #expect(ReportNumber.text(-3.0004) == "-3")
    #expect(ReportNumber.text(.nan) == "0")
    #expect(ReportNumber.coordinate(12.34) == "12.3")
    #expect(ReportNumber.coordinate(-0.05) == "-0.1")
  }

  @Test("a sortable table: a button per header, data-v on numeric cells, a note for the rows left out")
  func table() {
    let table = HTMLTable(["name", "count"], numeric: [1], limit: 1)
    let text = Self.html { out in
      table.append(caption: "Things", rows: [["a", .init(3)], ["b", .init(1)]], more: "see `app`", into: &out)
    }
    #expect(text.contains("<th aria-sort=\"none\"><button type=\"button\">name</button></th>"))
    #expect(text.contains("<th class=\"n\" aria-sort=\"none\">"))
    #expect(text.contains("<td data-v=\"3\">3</td>"))
    #expect(!text.contains(">b<"))
    #expect(text.contains("1 of 2 rows; see `app`"))
  }
}
