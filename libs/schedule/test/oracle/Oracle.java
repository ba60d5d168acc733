import org.quartz.CronExpression;
import java.io.*;
import java.util.*;
// stdin lines: expr \t zone \t afterMillis \t n   -> stdout: ERR msg | millis,millis,...
public class Oracle {
  public static void main(String[] a) throws Exception {
    BufferedReader r = new BufferedReader(new InputStreamReader(System.in));
    String line;
    while ((line = r.readLine()) != null) {
      String[] p = line.split("\t");
      try {
        CronExpression c = new CronExpression(p[0]);
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
