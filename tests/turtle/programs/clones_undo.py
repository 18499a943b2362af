# Clones drawing a star together under tracer(n, 0), then every turtle undoes everything.
import turtle

screen = turtle.Screen()
screen.bgcolor('black')
first = turtle.Turtle()
first.speed(0)
first.hideturtle()
first.pencolor('red')
first.pensize(2)
screen.tracer(12, 0)
crew = [first]
for i in range(1, 8):
    twin = crew[-1].clone()
    twin.right(45)
    crew.append(twin)
for step in range(8):
    for t in crew:
        t.right(45)
        t.pencolor(step / 8, 0, 1 - step / 8)
        t.forward(25)
print('entries', [t.undobufferentries() for t in screen.turtles()])
rounds = 0
while any(t.undobufferentries() for t in screen.turtles()):
    for t in screen.turtles():
        t.undo()
    rounds += 1
print('rounds', rounds)
screen.update()
first.pendown()
first.forward(40)
screen.update()
turtle.done()
