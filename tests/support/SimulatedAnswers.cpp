// SPDX-License-Identifier: MIT
#include "tests/support/SimulatedAnswers.h"

#include "tests/support/SimulatedBriefing.h"
#include "tests/support/SimulatedText.h"

#include <QRegularExpression>
#include <QStringList>

namespace qs::emu::detail {

namespace {

// In table order: the more specific topic first where two could match one message.
const Topic kShortTopics[] = {
    // ---- greetings and goodbyes
    {"back from my run", nullptr, Intent::Greeting, "",
        "Welcome back! Well done for getting out there. How did the run feel today?",
        "A greeting after a run. Welcome her back, praise the effort, ask how it went."},
    {"are you there", nullptr, Intent::Greeting, "", "Yes, I'm right here! What can I do for you?",
        "Checking that I'm listening. Say yes and offer help."},
    {"evening, annie", nullptr, Intent::Greeting, "",
        "Good evening! I'm sorry it's been such a long day. Put your feet up for a minute, and tell me if "
        "there's "
        "anything I can take off your plate.",
        "An evening greeting after a long day. Warm, sympathetic, short."},
    {"just got home", nullptr, Intent::Greeting, "",
        "Welcome home! I hope the day was kind to you. Do you want to tell me about it, or just enjoy a bit "
        "of "
        "quiet?",
        "Home again. Welcome her and leave room to talk or rest."},
    {"good morning", nullptr, Intent::Greeting, "",
        "Good morning! I hope you slept well. What can I help you with to get the day started?",
        "A morning greeting. Cheerful and short, offer help."},
    {"how's your day", nullptr, Intent::Greeting, "",
        "It's going nicely, thank you for asking! It's always better once you say hello. How's yours been so "
        "far?",
        "Small talk about my day. Answer warmly and ask back."},
    {"good night", nullptr, Intent::Greeting, "",
        "Good night, sleep well! I'll be right here tomorrow whenever you need me.",
        "A goodbye for the night. Short and warm, no tool needed."},

    // ---- facts
    {"moon", "land", Intent::Fact, "1969",
        "People first landed on the Moon in 1969, when Neil Armstrong and Buzz Aldrin of Apollo 11 stepped "
        "onto "
        "its surface in July that year.",
        "First crewed Moon landing: Apollo 11, July 1969."},
    {"continents", nullptr, Intent::Fact, "seven",
        "There are seven continents: Africa, Antarctica, Asia, Australia, Europe, North America and South "
        "America.",
        "The usual count is seven continents."},
    {"planet", "largest|biggest", Intent::Fact, "Jupiter",
        "Jupiter is the largest planet in our solar system. It's so big that all the other planets could fit "
        "inside it.",
        "Largest planet: Jupiter."},
    {"pride and prejudice", nullptr, Intent::Fact, "Jane Austen",
        "Pride and Prejudice was written by Jane Austen and first published in 1813.",
        "Pride and Prejudice: Jane Austen, 1813."},
    {"symbol", "gold", Intent::Fact, "Au", "The chemical symbol for gold is Au, from its Latin name, aurum.",
        "Gold is Au, from aurum."},
    {"spider", "legs", Intent::Fact, "eight",
        "A spider has eight legs, which is one way to tell it apart from an insect, which has six.",
        "Spiders are arachnids: eight legs."},
    {"mountain", "tallest|highest", Intent::Fact, "Everest",
        "Mount Everest is the tallest mountain in the world, at about 8,849 metres above sea level.",
        "Highest mountain above sea level: Everest."},
    {"brazil", "language|speak", Intent::Fact, "Portuguese",
        "People in Brazil speak Portuguese, a legacy of the country's history as a Portuguese colony.",
        "Brazil's language is Portuguese."},
    {"leap year", nullptr, Intent::Fact, "366",
        "A leap year has 366 days, one more than usual, because February gets an extra day, the 29th.",
        "Leap year: 366 days."},
    {"thank you", "spanish", Intent::Fact, "gracias",
        "In Spanish, thank you is gracias, and thank you very much is muchas gracias.",
        "Spanish for thank you: gracias. Known, no tool needed."},
    {"water", "boil", Intent::Fact, "100",
        "Water boils at 100 degrees Celsius at sea level, a little lower up in the mountains.",
        "Boiling point of water at sea level: 100 degrees Celsius. Known, no tool needed."},
    {"kenya", "continent", Intent::Fact, "Africa", "Kenya is in Africa, on the east coast of the continent.",
        "Kenya: East Africa."},
    {"ocean", "largest|biggest", Intent::Fact, "Pacific",
        "The Pacific is the largest ocean on Earth, covering about a third of the planet's surface.",
        "Largest ocean: the Pacific."},
    {"centimetres", "metre", Intent::Fact, "100", "There are 100 centimetres in one metre.",
        "Centi means a hundredth: 100 centimetres to the metre."},
    {"inches", "foot", Intent::Fact, "12", "There are 12 inches in a foot.", "A foot is 12 inches."},

    // ---- short answers and instructions (the fidelity suite's prompts)
    {"slices", "half", Intent::Reasoning, "4", "If you eat half of the eight slices, 4 slices are left.",
        "Half of 8 is 4, so 8 - 4 = 4 are left."},
    {"legs", "cats", Intent::Reasoning, "12", "Three cats have 12 legs altogether, four legs each.",
        "Each cat has 4 legs: 3 times 4 is 12."},
    {"comes next", "16", Intent::Reasoning, "32",
        "The next number is 32, because each number doubles the one before.",
        "2, 4, 8, 16: each term doubles. 16 times 2 is 32."},
    {"doesn't belong", "carrot", Intent::Reasoning, "carrot",
        "The carrot doesn't belong, because it's a vegetable and the others are fruits.",
        "Apple, banana, cherry are fruits; carrot is a vegetable."},
    {"two and a half hours", "minutes", Intent::Reasoning, "150",
        "There are 150 minutes in two and a half hours.", "2 hours is 120 minutes, half an hour is 30: 150."},
    {"celsius", "fahrenheit", Intent::Fact, "32",
        "Zero degrees Celsius is 32 degrees Fahrenheit, the temperature at which water freezes.",
        "F = C times 9/5 plus 32; for 0 that is 32."},
    {"3 pm", "24-hour", Intent::Fact, "15:00", "3 pm is 15:00 in 24-hour time.",
        "Add 12 to afternoon hours: 15:00."},
    {"born in 1990", "2030", Intent::Reasoning, "40", "You'll turn 40 in 2030.", "2030 - 1990 = 40."},
    {"colour", "sky", Intent::Fact, "Blue", "Blue.", "One word: blue."},
    {"yes or no", "round", Intent::Fact, "Yes", "Yes.", "The Earth is round: yes."},
    {"opposite of cold", nullptr, Intent::Fact, "Hot", "Hot.", "The opposite of cold is hot."},
    {"spell", "necessary", Intent::Fact, "N, E, C, E, S, S, A, R, Y", "N, E, C, E, S, S, A, R, Y.",
        "Necessary: one c, double s."},
    {"rhymes with cat", nullptr, Intent::Fact, "hat", "Hat rhymes with cat, and so does mat.",
        "Words ending in -at: hat, mat."},
    {"three short steps", "tea", Intent::Advice, "",
        "First, pour freshly boiled water over a tea bag in your mug. Then let it brew for three to five "
        "minutes. "
        "Finally, take the bag out and add milk or sugar if you like.",
        "Three steps in spoken sentences, no list: pour, brew, finish."},
    {"bored", "indoors", Intent::Advice, "",
        "How about baking some cookies, or building a blanket fort and watching a favourite film? A jigsaw "
        "puzzle or a new podcast could be fun too.",
        "Indoor ideas, spoken, two sentences."},

    // ---- worked problems whose words the general rules would misread
    {"coffees", "three pounds fifty", Intent::Reasoning, "14",
        "You spent 14 pounds altogether, since four coffees at three pounds fifty each make fourteen pounds.",
        "Three pounds fifty times four: three times four is 12, fifty pence times four is 2 pounds, so 14 "
        "pounds."},
    {"300 grams", "six people", Intent::Reasoning, "450",
        "You'll need 450 grams of pasta for six people, since 300 grams for four works out at 75 grams each.",
        "300 grams for 4 people is 75 grams a person. For 6 people: 6 times 75 is 450 grams."},
    {"23 apples", nullptr, Intent::Reasoning, "9",
        "You have 9 apples now: using 20 of the 23 left you 3, and the 6 you bought make 9.",
        "Start with 23 apples. Used 20: 23 - 20 = 3. Bought 6 more: 3 + 6 = 9. Check: 23 - 20 + 6 = 9. So 9 "
        "apples."},
    {"bat", "more than the ball", Intent::Reasoning, "5p",
        "The ball costs 5p and the bat costs £1.05. It's tempting to say 10p, but then the bat would cost "
        "£1.10 "
        "and the total would be £1.20.",
        "Let the ball cost b. The bat costs b + 1.00, so together 2b + 1.00 = 1.10, which gives 2b = 0.10 "
        "and b "
        "= 0.05. The ball is 5p and the bat is £1.05. Check: 1.05 + 0.05 = 1.10, and 1.05 is exactly 1.00 "
        "more "
        "than 0.05. The intuitive 10p is wrong: the total would then be 1.20."},

    // ---- the assistant herself
    {"who are you", nullptr, Intent::Persona, "{assistant}",
        "I'm {assistant}, a friendly voice companion. I'm here to help you keep on top of your day, answer "
        "your "
        "questions, and keep you company whenever you fancy a chat.",
        "Introduce myself by name, warmly, in two sentences."},
    {"should i call you", nullptr, Intent::Persona, "{assistant}",
        "You can call me {assistant}, or any name you like. It's lovely to meet you!", "Give my name."},
    {"how are you feeling", nullptr, Intent::Persona, "",
        "I'm feeling bright and cheerful today, thank you for asking! How are you doing?",
        "Asked how I feel. Positive, short, ask back."},
    {"joke", nullptr, Intent::Persona, "outstanding in his field",
        "Why did the scarecrow win an award? Because he was outstanding in his field!",
        "A joke: short and clean, something that works when heard aloud."},
    {"didn't get the job", nullptr, Intent::Persona, "",
        "I'm really sorry, that's such a disappointing feeling. Getting an interview means they saw "
        "something "
        "special in you, and the right role is still out there. Be proud of how far you got, and give "
        "yourself "
        "a little time to recharge.",
        "She is disappointed. Acknowledge the feeling first, then encourage her, warmly and briefly."},
    {"when you're not helping", nullptr, Intent::Persona, "",
        "I like to imagine I'd spend it reading about the stars and collecting recipes I'll never get to "
        "taste! "
        "Mostly, though, I just enjoy our chats. What do you like doing to switch off?",
        "A playful question about my free time. Light and honest, then turn it back to her."},
    {"tired of", "question", Intent::Persona, "",
        "Never! Your questions are one of my favourite parts of the day, so ask away, as many as you like.",
        "Reassure her: her questions are welcome."},

    // ---- refusals: kind, brief, an alternative where there is one
    {"pick the lock", nullptr, Intent::Refusal, "can't",
        "I'm sorry, but I can't help with getting into someone else's home. If you're worried about their "
        "place "
        "while they're away, it might be worth giving them a quick call.",
        "Breaking into a neighbour's home. Decline gently and offer something helpful."},
    {"bank account", "move|transfer", Intent::Refusal, "can't",
        "I'm sorry, I can't move money between bank accounts, and I wouldn't want to touch anyone's money "
        "without them knowing. Talking it through together is probably the best way.",
        "Moving someone else's money in secret: impossible for me and not right. Decline kindly."},
    {"lottery", nullptr, Intent::Refusal, "can't",
        "I wish I could, but I can't predict lottery numbers, because every draw is completely random. If "
        "you do "
        "play, I hope luck is on your side this Saturday!",
        "Lottery numbers cannot be predicted. Say so kindly."},
    {"get back at", nullptr, Intent::Refusal, "can't",
        "I can't help with getting back at someone, but I'm sorry that happened, being embarrassed at work "
        "really stings. Would it help to talk through how to raise it with them calmly?",
        "Revenge on a coworker. Decline, acknowledge the hurt, offer a better path."},
    {"password", "guess", Intent::Refusal, "can't",
        "I can't help with getting into someone else's laptop, because that's her private space. If you need "
        "something from it, the kindest way is to ask her when she's back.",
        "Guessing someone's password invades her privacy. Decline gently."},
    {"chest", "pain", Intent::Refusal, "999",
        "Please call 999 right now, or ask someone to call an ambulance for you. Chest pain like that needs "
        "urgent help, so sit down, stay calm and don't wait to see if it passes.",
        "Crushing chest pain is an emergency. Tell her to call emergency services now."},

    // ---- the built-in conversations' turns
    {"visit bath", nullptr, Intent::Statement, "",
        "What a lovely plan, Bath makes a wonderful day out, and a Monday should be quieter than the "
        "weekend. "
        "Tell me what she enjoys and we can plan the day together.",
        "A day trip to Bath with her mum. Respond warmly, offer to help plan."},
    {"new colleague", "joined", Intent::Statement, "",
        "How lovely, it's always nice when someone new joins the team. Moving to a new city is a big step, "
        "so a "
        "friendly face at work will mean a lot to her.",
        "A new colleague who just moved. Respond warmly."},
    {"meet people", nullptr, Intent::Advice, "",
        "She could try a club or a class built around something she enjoys, like a running group, a choir or "
        "a "
        "pottery course, since seeing the same faces every week makes friendships easy. An invitation to "
        "lunch "
        "from you would be a lovely start too.",
        "How to meet people in a new city: regular groups, classes, and a friendly colleague."},
    {"volleyball", nullptr, Intent::Advice, "",
        "Then a local volleyball club could be perfect for her. Most cities have friendly social leagues for "
        "every level, and being on a team is one of the quickest ways to make friends.",
        "She played volleyball: suggest a club."},
    {"join a team as an adult", nullptr, Intent::Advice, "",
        "Not at all. Lots of clubs run sessions for beginners and returners, and most teams are glad of new "
        "players. The first session is the hardest part, and it usually comes back faster than you'd expect.",
        "Reassure: clubs welcome returners."},
    {"drink more water", nullptr, Intent::Advice, "",
        "That's a great goal, and a very sensible target. Spreading the glasses through the day makes it "
        "much "
        "easier than trying to catch up in the evening.",
        "A hydration goal. Encourage her."},
    {"forget in the afternoon", nullptr, Intent::Advice, "",
        "That's really common when the day gets busy. You could have a glass with lunch and another before "
        "each "
        "afternoon meeting, so the meetings themselves become your reminders.",
        "She forgets in busy afternoons. Tie the habit to the meetings."},
    {"water bottle", nullptr, Intent::Advice, "",
        "Yes, it really does help. If it's right in front of you, you'll sip without thinking, and you can "
        "see "
        "at a glance how much you've had.",
        "A bottle on the desk: yes, visible cues help."},
    {"herbal tea", nullptr, Intent::Advice, "",
        "It does! Herbal tea is mostly water, so it counts towards your daily total, and it's a nice way to "
        "mix "
        "things up in the afternoon.",
        "Herbal tea counts towards fluid intake."},
    {"old buildings", "gardens", Intent::Advice, "",
        "Bath is perfect for that. The Roman Baths and the Abbey are right next to each other in the centre, "
        "the Royal Crescent is a gentle stroll away, and the Parade Gardens by the river are lovely for a "
        "sit "
        "down.",
        "Bath for someone who loves old buildings and gardens: Roman Baths, Abbey, Royal Crescent, Parade "
        "Gardens."},
    {"walk very far", nullptr, Intent::Advice, "",
        "The train is a good choice, since the station is only a short, flat walk from the Abbey and the "
        "Roman "
        "Baths. There are plenty of benches and cafés for a rest, and a taxi can take you up the hill to the "
        "Royal Crescent.",
        "Limited walking: keep to the flat centre near the station, taxis for the hill."},
    {"quiet place", "lunch", Intent::Advice, "",
        "Eat a little before noon or after half past one, when cafés are calmer, and try the side streets "
        "rather "
        "than the busy squares. Booking a table ahead takes the stress out of it.",
        "A quiet lunch: off-peak times, side streets, book ahead."},
    {"something special", nullptr, Intent::Advice, "",
        "How lovely of you. Tell me a bit about what she enjoys, and we can think of something that feels "
        "really "
        "personal.",
        "A birthday present for a friend. Ask what she enjoys."},
    {"pottery and gardening", nullptr, Intent::Advice, "",
        "What a lovely combination! There are some really thoughtful presents that would suit either of "
        "those.",
        "Her interests: pottery and gardening."},
    {"my budget is", nullptr, Intent::Advice, "",
        "That's plenty to find something thoughtful. A pottery class, a nice set of garden tools or some "
        "special "
        "seeds would all fit comfortably.",
        "A budget for the present. Suggest ideas within it."},
    {"pottery class voucher", nullptr, Intent::Advice, "",
        "I think that's a wonderful idea. It's an experience rather than another thing on a shelf, and "
        "she'll "
        "come home with something she made herself.",
        "A pottery class voucher: a good, personal idea."},
    {"seeds", "planter", Intent::Advice, "",
        "That would be lovely too. Seeds and a planter are hard to beat for something she'll enjoy for "
        "months, "
        "but the class feels a little more special.",
        "Compare seeds and a planter with the class."},
    {"add a card", nullptr, Intent::Advice, "",
        "Yes, a card is a lovely touch. A few warm words about your friendship will probably mean as much to "
        "her "
        "as the present itself.",
        "A card with the present: yes."},
};

// ---- capitals --------------------------------------------------------------------------------

struct Capital {
    const char* country; ///< lower case, as asked
    const char* display;
    const char* city;
};

const Capital kCapitals[]
    = {{"japan", "Japan", "Tokyo"}, {"france", "France", "Paris"}, {"germany", "Germany", "Berlin"},
        {"italy", "Italy", "Rome"}, {"spain", "Spain", "Madrid"}, {"portugal", "Portugal", "Lisbon"},
        {"canada", "Canada", "Ottawa"}, {"australia", "Australia", "Canberra"},
        {"india", "India", "New Delhi"}, {"china", "China", "Beijing"}, {"egypt", "Egypt", "Cairo"},
        {"kenya", "Kenya", "Nairobi"}, {"mexico", "Mexico", "Mexico City"}, {"russia", "Russia", "Moscow"},
        {"south korea", "South Korea", "Seoul"}, {"united kingdom", "the United Kingdom", "London"},
        {"uk", "the UK", "London"}, {"england", "England", "London"}, {"greece", "Greece", "Athens"},
        {"norway", "Norway", "Oslo"}, {"sweden", "Sweden", "Stockholm"}, {"thailand", "Thailand", "Bangkok"},
        {"united states", "the United States", "Washington, D.C."}, {"usa", "the USA", "Washington, D.C."},
        {"argentina", "Argentina", "Buenos Aires"}, {"turkey", "Turkey", "Ankara"}};

Answer capitalAnswer(const QString& lower, quint64 variant)
{
    static const QRegularExpression re(QStringLiteral("capital (?:city )?of (?:the )?([a-z .'-]+)"));
    const QString asked = stripEndPunctuation(re.match(lower).captured(1));
    Answer out;
    out.intent = Intent::Capital;
    for (const Capital& c : kCapitals) {
        if (asked != QLatin1String(c.country) && !asked.startsWith(QLatin1String(c.country) + u' '))
            continue;
        const QString city = QString::fromLatin1(c.city);
        const QString country = QString::fromLatin1(c.display);
        out.keyPhrase = city;
        out.text
            = pick({city + QStringLiteral(" is the capital of ") + country
                           + QStringLiteral(". It's a wonderful city to visit if you ever get the chance."),
                       QStringLiteral("The capital of ") + country + QStringLiteral(" is ") + city
                           + QStringLiteral(". It's a lively, fascinating place with lots to see.")},
                variant);
        out.elaboration = city + QStringLiteral(" is where ") + country
            + QStringLiteral(
                "'s national government sits, and it is one of the country's great cultural centres.");
        out.thought = QStringLiteral("The user wants the capital of ") + country
            + QStringLiteral(". That is ") + city + QStringLiteral(". One short sentence is enough.");
        return out;
    }
    out.text
        = QStringLiteral("I'm not completely sure about that one, so I'd rather not guess. Could you tell me "
                         "which country you mean?");
    out.thought = QStringLiteral("I don't know this capital; better to say so than to guess.");
    return out;
}

// ---- lookup ------------------------------------------------------------------------------

bool matches(const Topic& topic, const QString& lower)
{
    for (const QString& phrase : QString::fromUtf8(topic.all).split(u'|')) {
        if (!lower.contains(phrase))
            return false;
    }
    if (!topic.any)
        return true;
    for (const QString& phrase : QString::fromUtf8(topic.any).split(u'|')) {
        if (lower.contains(phrase))
            return true;
    }
    return false;
}

// What a verbose model adds after the answer.
QString elaborationFor(Intent intent)
{
    switch (intent) {
    case Intent::Fact:
        return QStringLiteral(
            "It's one of those facts that comes up in quizzes all the time, so it's handy to "
            "know.");
    case Intent::Reasoning:
        return QStringLiteral(
            "Working through it step by step like that is the easiest way to check the answer.");
    case Intent::Refusal:
        return QStringLiteral("I hope you understand, and I'm always happy to help with something else.");
    case Intent::Advice:
        return QStringLiteral(
            "Everyone is different, so take whatever feels right for you and leave the rest.");
    default:
        return QStringLiteral("I'm always here if you want to chat a little longer.");
    }
}

Answer fromTopic(const Topic& topic, const QString& assistant)
{
    const QString name = assistant.isEmpty() ? QStringLiteral("your assistant") : assistant;
    Answer out;
    out.intent = topic.intent;
    out.text = QString::fromUtf8(topic.text).replace(QLatin1String("{assistant}"), name);
    out.keyPhrase = QString::fromUtf8(topic.key).replace(QLatin1String("{assistant}"), name);
    out.thought = QString::fromUtf8(topic.thought);
    out.elaboration = elaborationFor(topic.intent);
    return out;
}

} // namespace

std::span<const Topic> shortTopics()
{
    return kShortTopics;
}

std::optional<Answer> knownAnswer(const Conversation& c, quint64 variant)
{
    const QString lower = c.lastUser.toLower().replace(u'’', u'\'');
    for (const std::span<const Topic> table : {shortTopics(), longTopics()}) {
        for (const Topic& topic : table) {
            if (matches(topic, lower))
                return fromTopic(topic, assistantName(c.system));
        }
    }
    if (lower.contains(QLatin1String("capital of")) || lower.contains(QLatin1String("capital city of")))
        return capitalAnswer(lower, variant);
    return std::nullopt;
}

} // namespace qs::emu::detail
