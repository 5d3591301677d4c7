package com.example.tally;

import dev.sharding.ShardRegion;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;

@SpringBootApplication
public class TallyApplication {

    public static void main(String[] args) throws Exception {
        ConfigurableApplicationContext context = SpringApplication.run(TallyApplication.class, args);
        ShardRegion<Tally> tallies = context.getBean(ShardRegion.class);
        tallies.tell("t-1", new Add(2));
        Total total = tallies.ask("t-1", new Add(3), Total.class).get(30, TimeUnit.SECONDS);
        System.out.println("TALLY " + total.id() + "=" + total.value());
        System.exit(SpringApplication.exit(context));
    }
}
