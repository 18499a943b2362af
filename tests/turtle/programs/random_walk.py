import random
import turtle

random.seed(36)
walker = turtle.Turtle()
walker.speed(0)
turtle.tracer(0)
for step in range(300):
    walker.setheading(random.choice([0, 90, 180, 270]))
    walker.pencolor(random.random(), random.random(), random.random())
    walker.forward(random.randint(5, 25))
turtle.update()
print(walker.position())
turtle.done()
