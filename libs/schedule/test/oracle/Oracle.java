import org.quartz.CronExpression;
import java.io.*;
import java.util.*;
// stdin lines (UTF-8): expr \t zone \t afterMillis \t n   -> stdout: ERR msg | millis,millis,...
// In expr, a backslash before n, r or a backslash stands for a line feed, a carriage return or a backslash.
public class Oracle {
  static String unescape(String s) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\\' && i + 1 < s.length()) {
        char d = s.charAt(++i);
        b.append(d == 'n' ? '\n' : d == 'r' ? '\r' : d);
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }

  public static void main(String[] a) throws Exception {
    BufferedReader r = new BufferedReader(new InputStreamReader(System.in, java.nio.charset.StandardCharsets.UTF_8));
    String line;
    while ((line = r.readLine()) != null) {
      String[] p = line.split("\t");
      try {
        CronExpression c = new CronExpression(unescape(p[0]));
        c.setTimeZone(TimeZone.getTimeZone(p[1]));
        Date d = new Date(Long.parseLong(p[2]));
        int n = Integer.parseInt(p[3]);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
          d = c.getTimeAfter(d);
          if (d == null) break;
          if (i > 0) sb.append(',');
          sb.append(d.getTime());
        }
        System.out.println("OK " + sb);
      } catch (Exception e) {
        System.out.println("ERR " + String.valueOf(e.getMessage()).replace("\n"," "));
      }
    }
  }
}
